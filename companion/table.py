"""The table: live game sessions over the event store.

A session is a game, its players and options, and the list of accepted actions; its
state is always the fold of the engine's ``apply`` over that list. :class:`Table` is what
the dashboard, the timer hardware and the CLI talk to: it validates an action against
the current state, fills in chance the companion deals (digital play) with the session's
seeded generator, logs it, and only then reports it done. Listeners hear of every change,
after the table's lock is released, so building one game's live view never holds up a
change to another game. The table keeps the :data:`MAX_SESSIONS` games touched last in
memory; an older one is folded again from its log when it is asked for.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion import games
from companion.engine import Action, Game, replay
from companion.store import SessionRow, Store

Listener = Callable[[int, int], None]
"""Called with ``(session_id, seq)`` after every change to a session, outside the table's
lock (so it may call the table; two changes may be heard in either order)."""
MAX_SESSIONS = 64
"""Games kept in memory: far more than one evening's, so only a service that runs for
months ever folds a game again (a few milliseconds)."""
log = logging.getLogger("companion.table")


class NoSuchSession(LookupError):
    """No session has that id."""


@dataclass
class Session:
    """One game at the table, its state kept in step with its log."""

    id: int
    game: Game[Any]
    players: list[str]
    options: dict[str, Any]
    seed: int
    actions: list[Action] = field(default_factory=list)
    state: Any = None

    @property
    def seq(self) -> int:
        """How many actions have been applied."""
        return len(self.actions)

    def rng(self) -> random.Random:
        """The generator for the next action's chance: seeded by session and position,
        so the same game always rolls the same way."""
        return random.Random(f"{self.seed}/{self.seq}")

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "seq": self.seq, **self.game.summary(self.state)}

    def record(self) -> dict[str, Any]:
        """The record file of DESIGN.md, for ``companion export``."""
        return {
            "game": self.game.name,
            "players": list(self.players),
            "options": self.options,
            "actions": list(self.actions),
        }


class Table:
    """Sessions over one store. Thread-safe: one lock serialises every change."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._sessions: OrderedDict[int, Session] = OrderedDict()
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Register a listener; returns a function that removes it."""
        with self._lock:
            self._listeners.append(listener)

        def remove() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return remove

    def _changed(self, session_id: int, seq: int) -> None:
        """Tell the listeners; called after the lock is released. A listener that fails
        is logged: the change is committed and stays acknowledged."""
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(session_id, seq)
            except Exception:
                log.exception("a listener failed on the change of game %s", session_id)

    def _keep(self, session: Session) -> None:
        self._sessions[session.id] = session
        self._sessions.move_to_end(session.id)
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)

    def create(self, game_name: str, players: Sequence[str],
               options: Mapping[str, Any] | None = None, seed: int | None = None) -> Session:
        """Start a new session; raises ``UnknownGame`` or ``BadSetup`` (nothing stored)."""
        game = games.get(game_name)
        names = game.check_players(players)
        seed = secrets.randbits(48) if seed is None else seed
        prepared = game.prepare(names, dict(options or {}), random.Random(f"{seed}/setup"))
        state = game.new(names, prepared)
        with self._lock:
            sid = self.store.create(game.name, names, prepared, seed)
            session = Session(sid, game, names, prepared, seed, [], state)
            self._keep(session)
        self._changed(sid, 0)
        return session

    def get(self, session_id: int) -> Session:
        with self._lock:
            if not 0 < session_id < 2**63:  # beyond SQLite's integers: surely no game
                raise NoSuchSession(f"no game with id {session_id}")
            session = self._sessions.get(session_id)
            if session is None:
                row = self.store.session(session_id)
                if row is None:
                    raise NoSuchSession(f"no game with id {session_id}")
                session = _load(row, self.store.actions(session_id))
            self._keep(session)
            return session

    def list(self) -> list[SessionRow]:
        return self.store.sessions()

    def play(self, session_id: int, action: Action, seq: int | None = None) -> Session:
        """Validate, resolve and log ``action``; the session after it.

        Raises :class:`IllegalAction` (nothing logged) or ``Conflict`` when ``seq`` is
        not the number of actions the log holds.
        """
        with self._lock:
            session = self.get(session_id)
            session.game.rule(session.state, action)   # readable, and the game goes on
            resolved = session.game.resolve(session.state, action, session.rng())
            state = session.game.apply(session.state, resolved)
            self.store.append(session_id, resolved, expected=_expected(session, seq),
                              over=session.game.is_over(state))
            session.actions.append(resolved)
            session.state = state
            now = session.seq
        self._changed(session_id, now)
        return session

    def undo(self, session_id: int, seq: int | None = None) -> Action | None:
        """Take back the last action (kept in the history as undone); the action, or
        ``None`` when there is nothing to undo."""
        with self._lock:
            session = self.get(session_id)
            undone = self.store.undo(session_id, expected=_expected(session, seq))
            if undone is None:
                return None
            self._reload(session)
            now = session.seq
        self._changed(session_id, now)
        return undone

    def redo(self, session_id: int) -> Action | None:
        """Play again the action undone last, if nothing was played since."""
        with self._lock:
            session = self.get(session_id)
            entry = self.store.redoable(session_id)
            if entry is None:
                return None
            state = session.game.apply(session.state, entry.action)
            self.store.append(session_id, entry.action, expected=session.seq,
                              over=session.game.is_over(state), redo_of=entry.id)
            session.actions.append(entry.action)
            session.state = state
            seq = session.seq
        self._changed(session_id, seq)
        return entry.action

    def _reload(self, session: Session) -> None:
        fresh = _load(self.store.session(session.id) or _missing(session.id),
                      self.store.actions(session.id))
        session.actions, session.state = fresh.actions, fresh.state


def _expected(session: Session, seq: int | None) -> int:
    return session.seq if seq is None else seq


def _missing(session_id: int) -> SessionRow:
    raise NoSuchSession(f"no game with id {session_id}")


def _load(row: SessionRow, actions: list[Action]) -> Session:
    game = games.get(row.game)
    state = replay(game, game.new(row.players, row.options), actions)
    return Session(row.id, game, row.players, row.options, row.seed, actions, state)
