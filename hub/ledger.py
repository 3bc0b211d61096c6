"""The hub's own SQLite: every table's games, built from the changes the tables publish.

A change is applied only as the next of its game (``n`` one more than the hub has) and
only if the rules agree: a create starts the game with the engine's own ``new``, a play or
redo goes through the engine's ``apply``, an undo must take back the hub's last action,
and ``seq`` must be the number of actions after it. A change the hub has already is a
duplicate (dropped); one further on leaves a gap (the hub asks the table to replay); one
that breaks these rules contradicts the table's sequence (logged, never applied).
The file can be deleted: the hub rebuilds it from the broker and the tables' replays.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import games
from companion.engine import Game
from hub.topics import Event

log = logging.getLogger("companion.hub")

SCHEMA = """
CREATE TABLE tables (name TEXT PRIMARY KEY, online INTEGER NOT NULL, seen REAL NOT NULL);
CREATE TABLE events (
    tbl TEXT NOT NULL, id INTEGER NOT NULL, n INTEGER NOT NULL, kind TEXT NOT NULL,
    seq INTEGER NOT NULL, body TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (tbl, id, n)
)
"""
SCHEMA_VERSION = 1

APPLIED, DUPLICATE, GAP, CONTRADICTION = "applied", "duplicate", "gap", "contradiction"


@dataclass
class GameCopy:
    """The hub's copy of one game at one table."""

    table: str
    id: int
    engine: Game[Any]
    players: list[str]
    options: dict[str, Any]
    n: int = 1
    actions: list[dict[str, Any]] = field(default_factory=list)
    state: Any = None
    updated: float = 0.0
    _summary: dict[str, Any] | None = None

    def summary(self) -> dict[str, Any]:
        """The game as ``GET /api/tables`` lists it (made once per change)."""
        if self._summary is None or self._summary["n"] != self.n:
            s = self.engine.summary(self.state)
            self._summary = {
                "id": self.id, "game": self.engine.name, "title": self.engine.title,
                "players": s["players"], "current": s["current"], "over": s["over"],
                "scores": s["scores"], "winners": s["winners"], "seq": len(self.actions),
                "n": self.n, "updated": self.updated}
        return dict(self._summary)


def _body(event: Event) -> str:
    if event.kind == "create":
        return json.dumps({"game": event.game, "players": list(event.players),
                           "options": event.options}, sort_keys=True)
    return json.dumps(event.action, sort_keys=True)


class Ledger:
    """The hub's games. Thread-safe; write in :meth:`batch` blocks."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a copy: the tables hold the truth
        self._lock = threading.RLock()
        self.online: dict[str, bool] = {}
        self.copies: dict[tuple[str, int], GameCopy] = {}
        self._migrate()
        self._load()

    def close(self) -> None:
        self._db.close()

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(f"{self.path} was written by a newer companion hub; delete "
                               "it (the hub rebuilds it from the broker) or upgrade")
        if version < 1:
            with self.batch():
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _load(self) -> None:
        for name, online in self._db.execute("SELECT name, online FROM tables"):
            self.online[name] = bool(online)
        rows = self._db.execute("SELECT tbl, id, n, kind, seq, body, at FROM events"
                                " ORDER BY tbl, id, n")
        for tbl, gid, n, kind, seq, body, at in rows:
            data = json.loads(body)
            if kind == "create":
                event = Event(tbl, gid, n, kind, seq, at, game=data["game"],
                              players=tuple(data["players"]), options=data["options"])
            else:
                event = Event(tbl, gid, n, kind, seq, at, action=data)
            verdict, why = self._step(event)
            if verdict != APPLIED:  # only applied changes were stored
                log.error("the hub's database disagrees with itself at %s: %s", event.id, why)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction for many changes (committed when the block ends)."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # Changes ---------------------------------------------------------------------

    def have(self, table: str, game_id: int) -> int:
        """How many changes of the game the hub has (0: none)."""
        with self._lock:
            copy = self.copies.get((table, game_id))
            return copy.n if copy else 0

    def known(self, table: str) -> dict[int, int]:
        with self._lock:
            return {gid: c.n for (t, gid), c in self.copies.items() if t == table}

    def set_online(self, table: str, online: bool) -> bool:
        """Record a table's status; whether it changed."""
        with self._lock:
            before = self.online.get(table)
            self.online[table] = online
            self._db.execute("INSERT INTO tables (name, online, seen) VALUES (?, ?, ?)"
                             " ON CONFLICT(name) DO UPDATE SET online = excluded.online,"
                             " seen = excluded.seen", (table, int(online), time.time()))
            return before != online

    def apply(self, event: Event) -> tuple[str, str]:
        """Apply one change: ``(verdict, why)``; only ``applied`` changes anything."""
        with self._lock:
            verdict, why = self._step(event)
            if verdict == APPLIED:
                self._db.execute("INSERT INTO events (tbl, id, n, kind, seq, body, at)"
                                 " VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 (event.table, event.game_id, event.n, event.kind,
                                  event.seq, _body(event), event.at))
                self.online.setdefault(event.table, False)
            elif verdict == DUPLICATE:
                row = self._db.execute("SELECT kind, seq, body FROM events WHERE tbl = ?"
                                       " AND id = ? AND n = ?",
                                       (event.table, event.game_id, event.n)).fetchone()
                if row is not None and tuple(row) != (event.kind, event.seq, _body(event)):
                    return CONTRADICTION, f"change {event.id} differs from the one the hub has"
            return verdict, why

    def _step(self, event: Event) -> tuple[str, str]:
        key = (event.table, event.game_id)
        copy = self.copies.get(key)
        have = copy.n if copy else 0
        if event.n <= have:
            return DUPLICATE, f"the hub has {event.id} already"
        if event.n > have + 1:
            return GAP, f"{event.id} arrived but the hub has only {have} changes of the game"
        if (event.kind == "create") != (copy is None):
            return CONTRADICTION, f"{event.id}: only change 1 creates a game, and it must"
        if copy is None:
            return self._create(event)
        assert event.action is not None  # parsed
        expected = len(copy.actions) + (-1 if event.kind == "undo" else 1)
        if event.seq != expected:
            return CONTRADICTION, (f"{event.id} says {event.seq} actions after a "
                                   f"{event.kind}; the hub counts {expected}")
        try:
            if event.kind == "undo":
                if not copy.actions or copy.actions[-1] != event.action:
                    return CONTRADICTION, f"{event.id} undoes an action that is not the last"
                actions = copy.actions[:-1]
                state = copy.engine.new(copy.players, copy.options)
                for action in actions:
                    state = copy.engine.apply(state, action)
            else:
                actions = [*copy.actions, event.action]
                state = copy.engine.apply(copy.state, event.action)
        except Exception as err:  # the engine's own words for what cannot be played
            return CONTRADICTION, f"{event.id} breaks the rules: {err}"
        copy.actions, copy.state, copy.n, copy.updated = actions, state, event.n, event.at
        return APPLIED, ""

    def _create(self, event: Event) -> tuple[str, str]:
        try:
            engine = games.get(event.game or "")
            players = list(event.players)
            state = engine.new(players, event.options or {})
        except Exception as err:
            return CONTRADICTION, f"{event.id} starts a game the hub cannot: {err}"
        self.copies[(event.table, event.game_id)] = GameCopy(
            event.table, event.game_id, engine, players, dict(event.options or {}), 1, [],
            state, event.at)
        return APPLIED, ""

    # Reading -------------------------------------------------------------------

    def table_json(self, name: str) -> dict[str, Any]:
        with self._lock:
            mine = sorted((c for (t, _), c in self.copies.items() if t == name),
                          key=lambda c: c.id)
            return {"table": name, "online": self.online.get(name, False),
                    "games": [c.summary() for c in mine]}

    def tables_json(self) -> dict[str, Any]:
        with self._lock:
            names = sorted(set(self.online) | {t for t, _ in self.copies})
            return {"tables": [self.table_json(n) for n in names]}

    def finished(self) -> list[dict[str, Any]]:
        """Every finished game's summary with its table, for the league."""
        with self._lock:
            return [{"table": c.table, **s} for c in self.copies.values()
                    if (s := c.summary())["over"]]
