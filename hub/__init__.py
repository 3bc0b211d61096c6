"""The hub: many tables over MQTT (Mosquitto as the broker, paho-mqtt as the client).

Each table's companion publishes its games (:mod:`hub.publish`, started by ``companion
serve --hub URL --table NAME``); ``companion hub`` follows every table
(:mod:`hub.follow`), keeps its own SQLite (:mod:`hub.ledger`), computes the league
(:mod:`hub.league`) and serves the hub's pages (:mod:`hub.app`). This package uses
``companion`` and ``web``; neither imports it.
"""
