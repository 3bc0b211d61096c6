"""``companion doctor``'s hub check: with ``hub`` set in config.toml, can this table reach
the broker, are its user name and password accepted, and does the broker's ACL give it
its own topics (the table's name must be its broker user). The check publishes a probe
on the table's status topic, which the hub ignores."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from typing import Any

from companion.doctor import Check, Finding, Setup, problem, well

TIMEOUT = 5.0
PASSWD = "sudo mosquitto_passwd /etc/mosquitto/companion.passwd"


def probe(url: Any, username: str, password: str | None, table: str,
          timeout: float = TIMEOUT) -> tuple[str, str]:
    """Connect and publish a probe as ``table`` (the hub ignores it): ``("ok", "")``, or
    what went wrong as ``("unreachable" | "refused" | "denied", detail)``."""
    from hub import mqtt, topics

    client = mqtt.client(f"companion-doctor-{username}-{os.getpid()}", url, username,
                         password)
    client.reconnect_delay_set(60, 60)  # one try is the answer
    answer: dict[str, tuple[str, str]] = {}
    done = threading.Event()

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        refused = mqtt.refusal(reason)
        if refused:
            answer["r"] = ("refused", refused)
            done.set()
        else:  # MQTT 5 answers a publish the ACL forbids with "Not authorized"
            c.publish(topics.status_topic(table), topics.dumps(topics.probe(table)), qos=1)

    def on_publish(c: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        refused = mqtt.refusal(reason)
        answer["r"] = ("denied", refused) if refused else ("ok", "")
        done.set()

    client.on_connect = on_connect
    client.on_publish = on_publish
    try:
        client.connect(url.host, url.port, keepalive=10)
    except (OSError, ValueError) as err:
        return "unreachable", str(err)
    client.loop_start()
    try:
        if not done.wait(timeout):
            return "unreachable", f"no answer within {timeout:.0f} s"
        return answer["r"]
    finally:
        client.disconnect()
        client.loop_stop()


def check_hub(setup: Setup) -> Iterable[Finding]:
    from hub import mqtt, topics

    conf = setup.settings
    if not conf.hub:
        yield well("hub", "not publishing to a hub (no hub = \"mqtt://…\" in config.toml)")
        return
    try:
        url = mqtt.parse_url(conf.hub)
        name = topics.check_table_name(conf.table or "")
    except ValueError as err:
        yield problem("hub", str(err), 'set hub = "mqtt://HOST:PORT" and table = "NAME" in '
                      "config.toml")
        return
    user = conf.hub_username or name
    verdict, detail = probe(url, user, conf.hub_password, name)
    if verdict == "unreachable":
        yield problem("hub", f"cannot reach the broker {url}: {detail}",
                      "is Mosquitto running there (sudo systemctl status mosquitto) and is "
                      "the address right? Play goes on meanwhile; the games are published "
                      "once it answers")
    elif verdict == "refused":
        yield problem("hub", f"the broker {url} refused user {user!r}: {detail}",
                      f"check hub_username and hub_password in config.toml; on the broker: "
                      f"{PASSWD} {user}")
    elif verdict == "denied":
        yield problem("hub", f"the broker {url} accepts user {user!r} but its ACL does not "
                      f"give it table {name!r}'s topics ({detail})",
                      "name the table as its broker user (table = hub_username), with the "
                      "ACL of deploy/mosquitto/companion.acl")
    else:
        yield well("hub", f"the broker {url} accepts table {name} as user {user}")


CHECKS: list[Check] = [check_hub]
