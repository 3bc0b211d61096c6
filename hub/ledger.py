"""The hub's own SQLite: every table's games, built from the changes the tables publish.

A change is applied only as the next of its game (``n`` one more than the hub has) and
only if the rules agree: a create starts the game with the engine's own ``new``, a play or
redo goes through the engine's ``apply``, an undo must take back the hub's last action,
and ``seq`` must be the number of actions after it. A change the hub has already is a
duplicate (dropped); one further on leaves a gap (the hub asks the table to replay); one
that breaks these rules contradicts the table's sequence (logged, never applied).

Each play keeps its log line (the engine's ``describe``) and each game its summary, so a
start reads the night without folding a game: a game is folded again only when its next
change arrives. Retained views are kept in memory only: a game the hub knows only from its
view (or whose view is further on than the hub's copy) is listed from the view, marked
``replaying``, until the table's replay brings its log; views never count in the league.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import games
from companion.engine import Action, Game, replay
from hub.topics import BadMessage, Event, View

log = logging.getLogger("companion.hub")

MIGRATIONS = (
    # 1: the tables and every change applied
    """CREATE TABLE tables (name TEXT PRIMARY KEY, online INTEGER NOT NULL,
                            seen REAL NOT NULL);
    CREATE TABLE events (
        tbl TEXT NOT NULL, id INTEGER NOT NULL, n INTEGER NOT NULL, kind TEXT NOT NULL,
        seq INTEGER NOT NULL, body TEXT NOT NULL, at REAL NOT NULL,
        PRIMARY KEY (tbl, id, n))""",
    # 2: each play's log line and each game's summary, so a start folds nothing
    """ALTER TABLE events ADD COLUMN line TEXT;
    CREATE TABLE games (
        tbl TEXT NOT NULL, id INTEGER NOT NULL, game TEXT NOT NULL, players TEXT NOT NULL,
        options TEXT NOT NULL, n INTEGER NOT NULL, seq INTEGER NOT NULL,
        summary TEXT NOT NULL, updated REAL NOT NULL, PRIMARY KEY (tbl, id))""",
)
SCHEMA_VERSION = len(MIGRATIONS)
SHOWN = ("players", "current", "over", "scores", "winners")
"""The engine's summary fields ``/api/tables`` lists."""

APPLIED, DUPLICATE, GAP, CONTRADICTION = "applied", "duplicate", "gap", "contradiction"


@dataclass
class Fold:
    """A game's actions in force, their log lines and the state they give."""

    actions: list[Action]
    lines: list[str]
    state: Any


@dataclass(eq=False)
class GameCopy:
    """The hub's copy of one game at one table; ``fold`` is ``None`` until needed."""

    table: str
    id: int
    engine: Game[Any]
    players: list[str]
    options: dict[str, Any]
    n: int
    seq: int
    shown: dict[str, Any]
    updated: float
    fold: Fold | None = None

    def summary(self) -> dict[str, Any]:
        """The game as ``GET /api/tables`` lists it."""
        return {"id": self.id, "game": self.engine.name, "title": self.engine.title,
                **self.shown, "seq": self.seq, "n": self.n, "updated": self.updated,
                "replaying": False}


def _body(event: Event) -> str:
    if event.kind == "create":
        return json.dumps({"game": event.game, "players": list(event.players),
                           "options": event.options}, sort_keys=True)
    return json.dumps(event.action, sort_keys=True)


def _line(engine: Game[Any], before: Any, action: Action, after: Any) -> str:
    """The log's line for a play, in the game's words (a line that cannot be written
    never stops a legal play from being applied)."""
    try:
        return engine.describe(before, action, after)
    except Exception:
        log.exception("%s could not describe %r", engine.name, action)
        return Game.describe(engine, before, action, after)


class Ledger:
    """The hub's games. Thread-safe; write in :meth:`batch` blocks."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # a copy: the tables hold the truth
        self._lock = threading.RLock()
        self._in_batch = False
        self._dirty: set[GameCopy] = set()
        self.online: dict[str, bool] = {}
        self.copies: dict[tuple[str, int], GameCopy] = {}
        self.views: dict[tuple[str, int], tuple[View, float]] = {}
        self._migrate()
        self._load()

    def close(self) -> None:
        self._db.close()

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(f"{self.path} was written by a newer companion hub; delete "
                               "it (the hub rebuilds it from the broker) or upgrade")
        for number, script in enumerate(MIGRATIONS, 1):
            if version < number:
                with self.batch():
                    for statement in script.split(";"):
                        self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version={number}")

    def _load(self) -> None:
        for name, online in self._db.execute("SELECT name, online FROM tables"):
            self.online[name] = bool(online)
        rows = self._db.execute("SELECT tbl, id, game, players, options, n, seq, summary,"
                                " updated FROM games").fetchall()
        for tbl, gid, game, players, options, n, seq, summary, updated in rows:
            try:
                engine = games.get(game)
            except games.UnknownGame:
                log.error("the hub's database has a game of %r, which this companion does "
                          "not know: %s/%s is left out", game, tbl, gid)
                continue
            self.copies[(tbl, gid)] = GameCopy(tbl, gid, engine, json.loads(players),
                                               json.loads(options), n, seq,
                                               json.loads(summary), updated)
        unsummed = self._db.execute(
            "SELECT DISTINCT tbl, id FROM events WHERE NOT EXISTS (SELECT 1 FROM games"
            " WHERE games.tbl = events.tbl AND games.id = events.id)").fetchall()
        if unsummed:  # written by a hub before schema 2: folded once, then kept
            with self.batch():
                for tbl, gid in unsummed:
                    self._rebuild(tbl, gid)

    def _rebuild(self, tbl: str, gid: int) -> None:
        rows = self._db.execute("SELECT n, kind, seq, body, at FROM events WHERE tbl = ?"
                                " AND id = ? ORDER BY n", (tbl, gid)).fetchall()
        for n, kind, seq, body, at in rows:
            data = json.loads(body)
            if kind == "create":
                event = Event(tbl, gid, n, kind, seq, at, game=data["game"],
                              players=tuple(data["players"]), options=data["options"])
            else:
                event = Event(tbl, gid, n, kind, seq, at, action=data)
            verdict, why, line = self._step(event)
            if verdict != APPLIED:  # only applied changes were stored
                log.error("the hub's database disagrees with itself at %s: %s", event.id, why)
                return
            self._db.execute("UPDATE events SET line = ? WHERE tbl = ? AND id = ? AND n = ?",
                             (line, tbl, gid, n))

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction for many changes (committed when the block ends; a block
        inside another is part of it)."""
        with self._lock:
            if self._in_batch:
                yield
                return
            self._in_batch = True
            self._db.execute("BEGIN")
            try:
                yield
                self._save_summaries()
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            finally:
                self._in_batch = False
                self._dirty.clear()
            self._db.execute("COMMIT")

    def _save_summaries(self) -> None:
        """Each changed game's summary, made once per batch; a finished game's fold is
        let go (an undo after the end folds it again)."""
        for copy in self._dirty:
            assert copy.fold is not None
            s = copy.engine.summary(copy.fold.state)
            copy.shown = {k: s[k] for k in SHOWN}
            copy.seq = len(copy.fold.actions)
            self._db.execute(
                "INSERT INTO games (tbl, id, game, players, options, n, seq, summary,"
                " updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(tbl, id) DO UPDATE"
                " SET n = excluded.n, seq = excluded.seq, summary = excluded.summary,"
                " updated = excluded.updated",
                (copy.table, copy.id, copy.engine.name, json.dumps(copy.players),
                 json.dumps(copy.options, sort_keys=True), copy.n, copy.seq,
                 json.dumps(copy.shown), copy.updated))
            if copy.shown["over"]:
                copy.fold = None

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

    def set_view(self, view: View) -> bool:
        """Keep a game's retained view; whether the hub now shows it (it is further on
        than the hub's copy). :class:`BadMessage` for a game the hub does not know."""
        try:
            games.get(view.game)
        except games.UnknownGame:
            raise BadMessage(f"the view is of a game the hub does not know: "
                             f"{view.game[:40]!r}") from None
        key = (view.table, view.game_id)
        with self._lock:
            old = self.views.get(key)
            if old is not None and old[0].n >= view.n:
                return False
            self.views[key] = (view, time.time())
            return view.n > self.have(*key)

    def apply(self, event: Event) -> tuple[str, str]:
        """Apply one change: ``(verdict, why)``; only ``applied`` changes anything."""
        with self.batch():
            verdict, why, line = self._step(event)
            if verdict == APPLIED:
                self._db.execute("INSERT INTO events (tbl, id, n, kind, seq, body, at, line)"
                                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                 (event.table, event.game_id, event.n, event.kind,
                                  event.seq, _body(event), event.at, line))
                self.online.setdefault(event.table, False)
            elif verdict == DUPLICATE:
                row = self._db.execute("SELECT kind, seq, body FROM events WHERE tbl = ?"
                                       " AND id = ? AND n = ?",
                                       (event.table, event.game_id, event.n)).fetchone()
                if row is not None and tuple(row) != (event.kind, event.seq, _body(event)):
                    return CONTRADICTION, f"change {event.id} differs from the one the hub has"
            return verdict, why

    def _step(self, event: Event) -> tuple[str, str, str | None]:
        """Apply ``event`` to the copy in memory: the verdict, why, the play's line."""
        key = (event.table, event.game_id)
        copy = self.copies.get(key)
        have = copy.n if copy else 0
        if event.n <= have:
            return DUPLICATE, f"the hub has {event.id} already", None
        if event.n > have + 1:
            return GAP, (f"{event.id} arrived but the hub has only {have} changes of the "
                         "game"), None
        if (event.kind == "create") != (copy is None):
            return CONTRADICTION, f"{event.id}: only change 1 creates a game, and it must", None
        if copy is None:
            return self._create(event)
        assert event.action is not None  # parsed
        expected = copy.seq + (-1 if event.kind == "undo" else 1)
        if event.seq != expected:
            return CONTRADICTION, (f"{event.id} says {event.seq} actions after a "
                                   f"{event.kind}; the hub counts {expected}"), None
        line = None
        try:
            fold = self._folded(copy)
            if event.kind == "undo":
                if not fold.actions or fold.actions[-1] != event.action:
                    return CONTRADICTION, (f"{event.id} undoes an action that is not the "
                                           "last"), None
                actions, lines = fold.actions[:-1], fold.lines[:-1]
                state = replay(copy.engine, copy.engine.new(copy.players, copy.options),
                               actions)
            else:
                state = copy.engine.apply(fold.state, event.action)
                line = _line(copy.engine, fold.state, event.action, state)
                actions, lines = [*fold.actions, event.action], [*fold.lines, line]
        except Exception as err:  # the engine's own words for what cannot be played
            return CONTRADICTION, f"{event.id} breaks the rules: {err}", None
        copy.fold = Fold(actions, lines, state)
        copy.n, copy.seq, copy.updated = event.n, len(actions), event.at
        self._dirty.add(copy)
        return APPLIED, "", line

    def _create(self, event: Event) -> tuple[str, str, str | None]:
        try:
            engine = games.get(event.game or "")
            players = list(event.players)
            state = engine.new(players, event.options or {})
        except Exception as err:
            return CONTRADICTION, f"{event.id} starts a game the hub cannot: {err}", None
        copy = GameCopy(event.table, event.game_id, engine, players,
                        dict(event.options or {}), 1, 0, {}, event.at, Fold([], [], state))
        self.copies[(event.table, event.game_id)] = copy
        self._dirty.add(copy)
        return APPLIED, "", None

    def _folded(self, copy: GameCopy) -> Fold:
        """The copy's fold, read back from the database and folded if it was let go."""
        if copy.fold is None:
            actions: list[Action] = []
            lines: list[str] = []
            for kind, body, line in self._db.execute(
                    "SELECT kind, body, line FROM events WHERE tbl = ? AND id = ? AND n > 1"
                    " ORDER BY n", (copy.table, copy.id)):
                if kind == "undo":
                    actions.pop()
                    lines.pop()
                else:
                    actions.append(json.loads(body))
                    lines.append(line or "")
            state = replay(copy.engine, copy.engine.new(copy.players, copy.options), actions)
            copy.fold = Fold(actions, lines, state)
        return copy.fold

    # Reading -------------------------------------------------------------------

    def _entries(self, name: str) -> dict[int, dict[str, Any]]:
        out = {gid: c.summary() for (t, gid), c in self.copies.items() if t == name}
        for (t, gid), (view, seen) in self.views.items():
            if t == name and view.n > self.have(t, gid):
                out[gid] = {"id": gid, "game": view.game, "title": games.get(view.game).title,
                            "players": list(view.players), "current": view.current,
                            "over": view.over, "scores": view.scores,
                            "winners": list(view.winners), "seq": view.seq,
                            "n": self.have(t, gid), "updated": seen, "replaying": True}
        return out

    def table_json(self, name: str) -> dict[str, Any]:
        with self._lock:
            entries = self._entries(name)
            return {"table": name, "online": self.online.get(name, False),
                    "games": [entries[gid] for gid in sorted(entries)]}

    def tables_json(self) -> dict[str, Any]:
        with self._lock:
            names = sorted(set(self.online) | {t for t, _ in self.copies}
                           | {t for t, _ in self.views})
            return {"tables": [self.table_json(n) for n in names]}

    def game_json(self, name: str, game_id: int) -> dict[str, Any] | None:
        """A game's entry of ``/api/tables`` and its ``log``: one ``{"seq", "text"}`` per
        action in force, in the game's words (empty while it is ``replaying``)."""
        with self._lock:
            entry = self._entries(name).get(game_id)
            if entry is None:
                return None
            lines = [] if entry["replaying"] else self._lines(self.copies[(name, game_id)])
            return {**entry, "log": [{"seq": i, "text": t} for i, t in enumerate(lines, 1)]}

    def _lines(self, copy: GameCopy) -> list[str]:
        if copy.fold is not None:
            return list(copy.fold.lines)
        lines: list[str] = []
        for kind, line in self._db.execute("SELECT kind, line FROM events WHERE tbl = ? AND"
                                           " id = ? AND n > 1 ORDER BY n",
                                           (copy.table, copy.id)):
            if kind == "undo":
                lines.pop()
            else:
                lines.append(line or "")
        return lines

    def finished(self) -> list[dict[str, Any]]:
        """Every finished game's summary with its table, for the league (from the hub's
        own copies only, never from a view)."""
        with self._lock:
            return [{"table": c.table, **s} for c in self.copies.values()
                    if (s := c.summary())["over"]]
