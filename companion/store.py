"""SQLite event store: sessions and their append-only action logs.

One file, WAL mode, ``synchronous=FULL``: an action is acknowledged only after its row
is committed, so after a power cut the log holds every acknowledged action and nothing
else. Undo never deletes: it marks the last active action as undone; redo appends the
undone action again. Schema versions migrate forward with ``PRAGMA user_version``.

A session's *changes* (its creation, then every play, undo and redo, in the order they
happened) can be read back with :meth:`Store.changes`; :meth:`Store.mark_published`
records how many of them a copy elsewhere (the hub) has acknowledged, so a publisher
catches up from the log after an outage or a restart.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def default_path() -> Path:
    """``$COMPANION_DB``, else ``$XDG_DATA_HOME/companion/companion.db``."""
    if os.environ.get("COMPANION_DB"):
        return Path(os.environ["COMPANION_DB"])
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return data / "companion" / "companion.db"


class StoreError(RuntimeError):
    """The database cannot be opened or written; the message says what to check.

    ``full`` is true when the disk (or the database's size cap) has no room left: the
    write was rolled back and will succeed once space is freed.
    """

    def __init__(self, message: str, *, full: bool = False) -> None:
        super().__init__(message)
        self.full = full


def _write_error(path: Path, err: sqlite3.Error) -> StoreError:
    full = getattr(err, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    if full:
        return StoreError(f"the disk holding {path} is full: nothing was saved", full=True)
    return StoreError(f"cannot write to {path}: {err}")


class Conflict(RuntimeError):
    """Another client acted first: the caller saw ``expected`` actions, there are ``actual``."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"the game moved on: you saw {expected} actions, there are {actual}")
        self.expected = expected
        self.actual = actual


@dataclass(frozen=True)
class SessionRow:
    id: int
    game: str
    players: list[str]
    options: dict[str, Any]
    seed: int
    created: float
    updated: float
    over: bool


@dataclass(frozen=True)
class Change:
    """One change to a session. ``n`` counts from 1 (the creation); ``kind`` is
    ``create``, ``play``, ``undo`` or ``redo``; ``action`` is the action played, undone or
    redone (``None`` for the creation); ``seq`` the number of active actions after it."""

    n: int
    kind: str
    action: dict[str, Any] | None
    seq: int
    at: float


@dataclass(frozen=True)
class LogEntry:
    """One row of a session's history: an action, whether it was undone, when."""

    id: int
    action: dict[str, Any]
    at: float
    undone: bool
    redo_of: int | None


def _v1(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            game TEXT NOT NULL,
            players TEXT NOT NULL,
            options TEXT NOT NULL,
            seed INTEGER NOT NULL,
            created REAL NOT NULL,
            updated REAL NOT NULL,
            over INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE actions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            action TEXT NOT NULL,
            at REAL NOT NULL,
            undone_at INTEGER,
            redo_of INTEGER REFERENCES actions(id)
        );
        CREATE INDEX actions_by_session ON actions(session_id, id);
        """
    )


def _v2(db: sqlite3.Connection) -> None:
    # When an undo happened (``undone_at`` is an id mark, not a time), and how many of a
    # session's changes were acknowledged by a copy elsewhere.
    _run_script(
        db,
        """
        ALTER TABLE actions ADD COLUMN undone_time REAL;
        CREATE TABLE published (
            session_id INTEGER PRIMARY KEY REFERENCES sessions(id),
            changes INTEGER NOT NULL,
            at REAL NOT NULL
        )
        """
    )


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Run ``;``-separated statements inside the caller's transaction (``executescript``
    would commit it)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


# Forward migrations: MIGRATIONS[n] takes a database at user_version n to n + 1.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2]
SCHEMA_VERSION = len(MIGRATIONS)


class Store:
    """The event store. Safe to share between threads; other processes may open the
    same file at the same time (SQLite's locking serialises writers)."""

    def __init__(self, path: str | os.PathLike[str], *, durable: bool = True) -> None:
        """``durable=False``: this connection's commits skip the fsync (WAL's
        ``synchronous=NORMAL``), for bookkeeping a power cut may undo without harm (what
        was published is then published again)."""
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=10
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._lock = threading.RLock()
            self._migrate()
        except (OSError, sqlite3.Error) as err:
            raise StoreError(f"cannot open the database {self.path}: {err}") from err

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; committed (and so acknowledged) when the block ends."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise _write_error(self.path, err) from err
            try:
                yield self._db
                self._db.execute("COMMIT")
            except sqlite3.Error as err:
                self._rollback()
                raise _write_error(self.path, err) from err
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        if self._db.in_transaction:
            # SQLite may have rolled back already (e.g. after a full disk).
            with suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")

    def _migrate(self) -> None:
        with self._write() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} was written by a newer companion (schema {version}); "
                    "upgrade the companion"
                )
            for step in MIGRATIONS[version:]:
                step(db)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def integrity(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``"ok"`` for a sound file."""
        with self._lock:
            return "; ".join(r[0] for r in self._db.execute("PRAGMA integrity_check"))

    def backup(self, dest: str | os.PathLike[str]) -> None:
        """Write a consistent copy to ``dest`` while others go on writing (SQLite's
        online backup API). Restore by stopping the service and copying it back."""
        target = Path(dest)
        if target.exists():
            raise StoreError(f"{target} exists already: choose a new file for the backup")
        try:
            out = sqlite3.connect(target)
            try:
                with self._lock:
                    self._db.backup(out)
            finally:
                out.close()
        except (OSError, sqlite3.Error) as err:
            target.unlink(missing_ok=True)
            raise StoreError(f"cannot write the backup {target}: {err}") from err

    # Sessions ------------------------------------------------------------------

    def create(self, game: str, players: list[str], options: dict[str, Any], seed: int) -> int:
        now = time.time()
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO sessions (game, players, options, seed, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game, json.dumps(players), json.dumps(options), seed, now, now),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    def session(self, session_id: int) -> SessionRow | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, game, players, options, seed, created, updated, over"
                " FROM sessions WHERE id = ?",
                (session_id,),
            ).fetchone()
        return _session_row(row) if row else None

    def sessions(self) -> list[SessionRow]:
        """Every session, the most recently active first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, players, options, seed, created, updated, over"
                " FROM sessions ORDER BY updated DESC, id DESC"
            ).fetchall()
        return [_session_row(r) for r in rows]

    # Actions -------------------------------------------------------------------

    def actions(self, session_id: int) -> list[dict[str, Any]]:
        """The active actions of a session, in order (undone ones left out)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT action FROM actions WHERE session_id = ? AND undone_at IS NULL"
                " ORDER BY id",
                (session_id,),
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def history(self, session_id: int) -> list[LogEntry]:
        """Every row ever logged for a session, undone ones included, in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, action, at, undone_at, redo_of FROM actions"
                " WHERE session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
        return [LogEntry(r[0], json.loads(r[1]), r[2], r[3] is not None, r[4]) for r in rows]

    def append(
        self, session_id: int, action: dict[str, Any], *, expected: int | None = None,
        over: bool = False, redo_of: int | None = None,
    ) -> int:
        """Log an action; returns the number of active actions after it.

        ``expected`` is how many active actions the caller's state was built on; if the
        log has moved on, :class:`Conflict` is raised and nothing is written.
        """
        with self._write() as db:
            count = self._count(db, session_id)
            if expected is not None and expected != count:
                raise Conflict(expected, count)
            now = time.time()
            db.execute(
                "INSERT INTO actions (session_id, action, at, redo_of) VALUES (?, ?, ?, ?)",
                (session_id, json.dumps(action), now, redo_of),
            )
            db.execute(
                "UPDATE sessions SET updated = ?, over = ? WHERE id = ?",
                (now, int(over), session_id),
            )
            return count + 1

    def undo(self, session_id: int, *, expected: int | None = None) -> dict[str, Any] | None:
        """Mark the last active action as undone and return it (``None`` if none)."""
        with self._write() as db:
            count = self._count(db, session_id)
            if expected is not None and expected != count:
                raise Conflict(expected, count)
            row = db.execute(
                "SELECT id, action FROM actions WHERE session_id = ? AND undone_at IS NULL"
                " ORDER BY id DESC LIMIT 1",
                (session_id,),
            ).fetchone()
            if row is None:
                return None
            mark = db.execute("SELECT COALESCE(MAX(id), 0) FROM actions").fetchone()[0]
            db.execute("UPDATE actions SET undone_at = ?, undone_time = ? WHERE id = ?",
                       (mark, time.time(), row[0]))
            db.execute(
                "UPDATE sessions SET updated = ?, over = 0 WHERE id = ?",
                (time.time(), session_id),
            )
            return dict(json.loads(row[1]))

    def redoable(self, session_id: int) -> LogEntry | None:
        """The action a redo would bring back: the most recently undone one, as long as
        no new action was played since it was undone and it was not redone already."""
        with self._lock:
            row = self._db.execute(
                """
                SELECT a.id, a.action, a.at, a.undone_at, a.redo_of FROM actions a
                WHERE a.session_id = ? AND a.undone_at IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM actions r WHERE r.redo_of = a.id)
                  AND NOT EXISTS (SELECT 1 FROM actions n WHERE n.session_id = a.session_id
                                  AND n.redo_of IS NULL AND n.id > a.undone_at)
                ORDER BY a.undone_at DESC, a.id ASC LIMIT 1
                """,
                (session_id,),
            ).fetchone()
        return LogEntry(row[0], json.loads(row[1]), row[2], True, row[4]) if row else None

    # Changes and what was published of them ------------------------------------

    def changes(self, session_id: int, after: int = 0) -> list[Change]:
        """The session's changes numbered ``after + 1`` on, in the order they happened.

        An undo marks its row with the largest action id at the time, so a change's place
        is its row id (play, redo) or its mark (undo, after the rows up to the mark; of
        two undos with one mark, the later-logged row was undone first).
        """
        with self._lock:
            head = self._db.execute("SELECT created FROM sessions WHERE id = ?",
                                    (session_id,)).fetchone()
            rows = self._db.execute(
                "SELECT id, action, at, undone_at, undone_time, redo_of FROM actions"
                " WHERE session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
        if head is None:
            return []
        marks: list[tuple[tuple[int, int, int], str, str, float]] = []
        for rid, action, at, undone_at, undone_time, redo_of in rows:
            marks.append(((rid, 0, 0), "redo" if redo_of else "play", action, at))
            if undone_at is not None:
                marks.append(((undone_at, 1, -rid), "undo", action, undone_time or at))
        marks.sort(key=lambda m: m[0])
        out = [Change(1, "create", None, 0, head[0])] if after < 1 else []
        seq = 0
        for n, (_, kind, action, at) in enumerate(marks, start=2):
            seq += -1 if kind == "undo" else 1
            if n > after:
                out.append(Change(n, kind, json.loads(action), seq, at))
        return out

    def unpublished(self) -> list[tuple[int, int, int]]:
        """``(session id, changes, published)`` of every session with changes not yet
        acknowledged, the oldest first."""
        with self._lock:
            rows = self._db.execute(
                """
                SELECT s.id, 1 + COUNT(a.id) + COUNT(a.undone_at) AS total,
                       COALESCE(p.changes, 0) AS done
                FROM sessions s LEFT JOIN actions a ON a.session_id = s.id
                LEFT JOIN published p ON p.session_id = s.id
                GROUP BY s.id HAVING total > done ORDER BY s.id
                """
            ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    def published(self, session_id: int) -> int:
        """How many of the session's changes were acknowledged (0 if none)."""
        with self._lock:
            row = self._db.execute("SELECT changes FROM published WHERE session_id = ?",
                                   (session_id,)).fetchone()
        return int(row[0]) if row else 0

    def mark_published(self, session_id: int, changes: int) -> None:
        """Record that the first ``changes`` changes were acknowledged (never goes back)."""
        with self._write() as db:
            db.execute(
                "INSERT INTO published (session_id, changes, at) VALUES (?, ?, ?)"
                " ON CONFLICT(session_id) DO UPDATE SET changes = MAX(changes,"
                " excluded.changes), at = excluded.at",
                (session_id, changes, time.time()),
            )

    def count(self, session_id: int) -> int:
        with self._lock:
            return self._count(self._db, session_id)

    @staticmethod
    def _count(db: sqlite3.Connection, session_id: int) -> int:
        return int(
            db.execute(
                "SELECT COUNT(*) FROM actions WHERE session_id = ? AND undone_at IS NULL",
                (session_id,),
            ).fetchone()[0]
        )


def _session_row(row: tuple[Any, ...]) -> SessionRow:
    return SessionRow(
        id=row[0], game=row[1], players=json.loads(row[2]), options=json.loads(row[3]),
        seed=row[4], created=row[5], updated=row[6], over=bool(row[7]),
    )
