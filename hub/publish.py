"""The table side: publish every change of every game to the broker, at least once.

The table's SQLite log is the queue. A listener on the table only wakes the publisher's
own thread, so play never waits for the broker. That thread reads the changes not yet
acknowledged (:meth:`Store.unpublished`, on its own connection to the database),
publishes them in order with QoS 1, then the game's view (retained), and records in
SQLite how far the broker has acknowledged. After a broker outage, a dropped Wi-Fi or a
restart of the table it carries on from there; the hub drops what it already has.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from companion import games
from companion.store import Change, SessionRow, Store
from companion.table import Table
from hub import mqtt, topics

log = logging.getLogger("companion.hub")

WINDOW = 200
"""Changes of one game handed to the client at a time before their acknowledgements."""
STALL = 60.0
"""Seconds without an acknowledgement, connected, before publishing again from the log."""


class Publisher:
    """Publishes ``table``'s games as ``name``; :meth:`close` when serving stops."""

    def __init__(self, table: Table, name: str, url: mqtt.BrokerURL, username: str | None,
                 password: str | None) -> None:
        self.name = topics.check_table_name(name)
        self.url = url
        # Its own connection, so reading the log never waits for the table's lock; marks
        # without fsync, so they never hold up the table's own commits.
        self.store = Store(table.store.path, durable=False)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.connected = threading.Event()
        self._acks: queue.SimpleQueue[tuple[int, str | None]] = queue.SimpleQueue()
        self._requests: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._inflight: dict[int, tuple[int, int]] = {}   # mid -> (game id, n)
        self._acked: dict[int, set[int]] = {}
        self._sent: dict[int, int] = {}                     # game id -> last n handed on
        self._last_ack = time.monotonic()
        self._folds: dict[int, tuple[int, int, Any]] = {}   # game id -> (n, seq, state)
        self._refused_logged = 0.0
        self.client = mqtt.client(f"companion-table-{self.name}", url, username or self.name,
                                  password)
        self.client.will_set(topics.status_topic(self.name),
                             topics.dumps({"table": self.name, "online": False}),
                             qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message
        self._remove: Callable[[], None] = table.listen(self._changed)
        self._thread = threading.Thread(target=self._run, name="hub-publisher", daemon=True)

    def start(self) -> Publisher:
        mqtt.connect_async(self.client, self.url)
        self._thread.start()
        return self

    def close(self) -> None:
        """Say offline, stop publishing (what is left stays queued in the log)."""
        self._remove()
        self._stop.set()
        self._wake.set()
        self._thread.join(5)
        if self.connected.is_set():
            info = self.client.publish(topics.status_topic(self.name),
                                       topics.dumps({"table": self.name, "online": False}),
                                       qos=1, retain=True)
            with suppress(RuntimeError, ValueError):
                info.wait_for_publish(2)
        self.client.disconnect()
        self.client.loop_stop()
        self.store.close()

    # Callbacks: the table's thread or paho's; each only hands over and wakes ----------

    def _changed(self, session_id: int, seq: int) -> None:
        self._wake.set()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        refused = mqtt.refusal(reason)
        if refused:
            log.error("the broker %s refused table %s: %s (check hub_username and "
                      "hub_password)", self.url, self.name, refused)
            return
        log.info("connected to the broker %s as table %s", self.url, self.name)
        client.subscribe(topics.replay_topic(self.name), qos=1)
        client.publish(topics.status_topic(self.name),
                       topics.dumps({"table": self.name, "online": True}), qos=1, retain=True)
        self.connected.set()
        self._last_ack = time.monotonic()
        self._wake.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        if self.connected.is_set():
            log.warning("lost the broker %s (%s); the games queue in the table's log",
                        self.url, reason)
        self.connected.clear()

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any,
                    properties: Any) -> None:
        self._acks.put((mid, mqtt.refusal(reason)))
        self._wake.set()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self._requests.put(bytes(message.payload))
        self._wake.set()

    # The publisher's thread --------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(1.0)
            self._wake.clear()
            try:
                self._settle()
                if self.connected.is_set():
                    self._answer_requests()
                    self._catch_up()
            except Exception:  # the table goes on whatever happens here
                log.exception("publishing to the hub failed; trying again")
                self._stop.wait(1.0)

    def _settle(self) -> None:
        """Record in the log how far the broker has acknowledged each game."""
        moved: set[int] = set()
        while True:
            try:
                mid, refused = self._acks.get_nowait()
            except queue.Empty:
                break
            where = self._inflight.pop(mid, None)
            if where is None:
                continue
            if refused:
                self._log_refused(refused)
                continue
            self._acked.setdefault(where[0], set()).add(where[1])
            moved.add(where[0])
            self._last_ack = time.monotonic()
        for gid in moved:
            done = start = self.store.published(gid)
            acked = self._acked[gid]
            while done + 1 in acked:
                done += 1
            acked.difference_update(range(start + 1, done + 1))
            if done > start:
                self.store.mark_published(gid, done)
        if self._inflight and time.monotonic() - self._last_ack > STALL \
                and self.connected.is_set():
            log.warning("no acknowledgement from the broker for %.0f s: publishing the "
                        "unacknowledged changes again", STALL)
            self._inflight.clear()
            self._acked.clear()
            self._sent.clear()
            self._last_ack = time.monotonic()

    def _log_refused(self, refused: str) -> None:
        if time.monotonic() - self._refused_logged > 30:
            self._refused_logged = time.monotonic()
            log.error("the broker refused a message of table %s (%s): the broker's ACL "
                      "lets a table publish only under companion/<its user name>/; is "
                      "hub_username the table's name?", self.name, refused)

    def _catch_up(self) -> None:
        for gid, total, done in self.store.unpublished():
            after = max(done, self._sent.get(gid, 0))
            if after >= total or after - done >= WINDOW:
                continue
            changes = self.store.changes(gid, after=after)[:WINDOW - (after - done)]
            for change in changes:
                mid = self._publish_change(gid, change)
                self._inflight[mid] = (gid, change.n)
                self._sent[gid] = change.n
            self._publish_view(gid)

    def _answer_requests(self) -> None:
        while True:
            try:
                payload = self._requests.get_nowait()
            except queue.Empty:
                return
            try:
                asked, every = topics.parse_replay(topics.loads(payload))
            except topics.BadMessage as err:
                log.warning("ignored a replay request: %s", err)
                continue
            ids = set(asked)
            if every:
                ids.update(row.id for row in self.store.sessions())
            for gid in sorted(ids):
                again = self.store.changes(gid, after=asked.get(gid, 0))
                for change in again:
                    self._publish_change(gid, change)
                if again:  # the broker may have lost the retained view too
                    self._publish_view(gid)

    def _publish_change(self, gid: int, change: Change) -> int:
        event = self._event(gid, change)
        info = self.client.publish(topics.events_topic(self.name, gid),
                                   topics.dumps(event.to_json()), qos=1)
        return int(info.mid)

    def _event(self, gid: int, change: Change) -> topics.Event:
        row = self.store.session(gid) if change.kind == "create" else None
        return event_of(self.name, gid, change, row)

    def _publish_view(self, gid: int) -> None:
        """The game's current view, retained, so the hub knows how far the game is."""
        row = self.store.session(gid)
        if row is None:
            return
        try:
            game = games.get(row.game)
        except games.UnknownGame:
            return
        n, seq, state = self._folds.get(gid, (0, 0, None))
        later = self.store.changes(gid, after=n)
        try:
            if state is None or any(c.kind == "undo" for c in later):
                later = self.store.changes(gid)
                state = game.new(row.players, row.options)
                for action in _active(later):
                    state = game.apply(state, action)
            else:
                for action in _active(later):
                    state = game.apply(state, action)
        except ValueError as err:
            log.warning("game %s does not replay (%s): its view is not published", gid, err)
            return
        if later:
            n, seq = later[-1].n, later[-1].seq
        self._folds[gid] = (n, seq, state)
        view = {"table": self.name, "id": gid, "n": n, "seq": seq, **game.summary(state)}
        self.client.publish(topics.view_topic(self.name, gid), topics.dumps(view), qos=1,
                            retain=True)


def event_of(table: str, gid: int, change: Change, row: SessionRow | None) -> topics.Event:
    """The published form of a store change (``row``: the session, for the creation)."""
    if change.kind == "create":
        assert row is not None
        return topics.Event(table, gid, 1, "create", 0, change.at, game=row.game,
                            players=tuple(row.players), options=row.options)
    return topics.Event(table, gid, change.n, change.kind, change.seq, change.at,
                        action=change.action)


def _active(changes: list[Change]) -> list[dict[str, Any]]:
    """The actions in force after ``changes`` (from the creation on), or, with no undo
    among them, the actions ``changes`` add."""
    actions: list[dict[str, Any]] = []
    for change in changes:
        if change.kind == "undo":
            actions.pop()
        elif change.action is not None:
            actions.append(change.action)
    return actions


def start_publisher(table: Table, hub: str, name: str | None, username: str | None,
                    password: str | None) -> Publisher:
    """The publisher ``companion serve --hub URL --table NAME`` runs; raises
    ``ValueError`` with a message to show for a bad address or name."""
    if not name:
        raise ValueError("--hub needs --table NAME (the table's name at the hub, and its "
                         "broker user)")
    return Publisher(table, name, mqtt.parse_url(hub), username, password).start()
