"""The hub side of the broker: follow every table, keep the ledger, ask for replays.

paho's thread only queues what arrives; one worker thread applies it to the
:class:`~hub.ledger.Ledger` in batches and tells the listeners (the pages' live
streams) which tables changed. Whatever the hub finds missing — a gap in a game's
changes, a retained view further on than the hub, a table coming back online, the hub's
own reconnection — it asks the table for with a replay request, at most every
:data:`ASK_AGAIN` seconds for the same thing.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from hub import mqtt, topics
from hub.ledger import APPLIED, CONTRADICTION, GAP, Ledger

log = logging.getLogger("companion.hub")

ASK_AGAIN = 3.0
BATCH = 500

Listener = Callable[[set[str]], None]


class Follower:
    """The hub's MQTT client over ``ledger``."""

    def __init__(self, ledger: Ledger, url: mqtt.BrokerURL, username: str | None,
                 password: str | None) -> None:
        self.ledger = ledger
        self.url = url
        self.connected = threading.Event()
        self._inbox: queue.SimpleQueue[tuple[str, bytes] | None] = queue.SimpleQueue()
        self._listeners: list[Listener] = []
        self._asked: dict[tuple[str, int], tuple[int, float]] = {}
        self.client = mqtt.client(f"companion-hub-{username or 'anonymous'}", url, username,
                                  password)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self._worker = threading.Thread(target=self._run, name="hub-follower", daemon=True)

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def start(self) -> Follower:
        self._worker.start()
        mqtt.connect_async(self.client, self.url)
        return self

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self._inbox.put(None)
        self._worker.join(5)

    # paho's thread ---------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        refused = mqtt.refusal(reason)
        if refused:
            log.error("the broker %s refused the hub: %s (check the hub's user name and "
                      "password)", self.url, refused)
            return
        log.info("following the tables on %s", self.url)
        client.subscribe([(t, 1) for t in topics.SUBSCRIPTIONS])
        self.connected.set()
        self._inbox.put(("", b"sync"))  # after a reconnection, ask every table to check

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        if self.connected.is_set():
            log.warning("lost the broker %s (%s); reconnecting", self.url, reason)
        self.connected.clear()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self._inbox.put((message.topic, bytes(message.payload)))

    # The worker ------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            item = self._inbox.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < BATCH:
                try:
                    more = self._inbox.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._inbox.put(None)
                    break
                batch.append(more)
            try:
                self._handle(batch)
            except Exception:
                log.exception("the hub could not apply %d messages", len(batch))

    def _handle(self, batch: list[tuple[str, bytes]]) -> None:
        changed: set[str] = set()
        asks: dict[str, dict[int, int]] = {}
        syncs: set[str] = set()
        with self.ledger.batch():
            for topic, payload in batch:
                if not topic:
                    syncs.update(self.ledger.online)
                    continue
                try:
                    self._one(topic, payload, changed, asks, syncs)
                except topics.BadMessage as err:
                    log.warning("ignored a message on %s: %s", topic[:200], err)
        for table in syncs:  # a (re)connection: always asked, at most once a connection
            self._publish_ask(table, {"games": {str(g): n for g, n in
                                                self.ledger.known(table).items()},
                                      "all": True})
        for table, wanted in asks.items():
            if table not in syncs:
                self._ask(table, wanted)
        if changed:
            for listener in list(self._listeners):
                try:
                    listener(changed)
                except Exception:
                    log.exception("a live page listener failed")

    def _one(self, topic: str, payload: bytes, changed: set[str],
             asks: dict[str, dict[int, int]], syncs: set[str]) -> None:
        where = topics.parse_topic(topic)
        if where.what == "replay":
            return
        data = topics.loads(payload)
        if where.what == "status":
            online = topics.parse_status(data)
            if online is None:
                return
            if self.ledger.set_online(where.table, online):
                changed.add(where.table)
            if online:
                syncs.add(where.table)
            return
        assert where.game_id is not None
        if where.what == "view":
            view = topics.parse_view(where, data)
            if self.ledger.set_view(view):  # shown until the replay brings the log
                changed.add(where.table)
            have = self.ledger.have(where.table, where.game_id)
            if view.n > have:
                asks.setdefault(where.table, {})[where.game_id] = have
            return
        event = topics.parse_event(where, data)
        verdict, why = self.ledger.apply(event)
        if verdict == APPLIED:
            changed.add(where.table)
        elif verdict == GAP:
            asks.setdefault(where.table, {})[where.game_id] = self.ledger.have(
                where.table, where.game_id)
        elif verdict == CONTRADICTION:
            log.warning("ignored %s: it contradicts the table's sequence (%s)", event.id, why)

    def _ask(self, table: str, wanted: dict[int, int]) -> None:
        """Ask for the changes after ``wanted[game]``, unless the same was asked a moment
        ago (the answer may be on its way)."""
        now = time.monotonic()
        fresh = {g: n for g, n in wanted.items()
                 if self._asked.get((table, g), (-1, 0.0))[0] != n
                 or now - self._asked[(table, g)][1] > ASK_AGAIN}
        if fresh:
            for g, n in fresh.items():
                self._asked[(table, g)] = (n, now)
            self._publish_ask(table, {"games": {str(g): n for g, n in fresh.items()}})

    def _publish_ask(self, table: str, request: dict[str, Any]) -> None:
        self.client.publish(topics.replay_topic(table), topics.dumps(request), qos=1)
