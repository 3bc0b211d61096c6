"""What the dashboard shows of a session: the replay-shaped object, the legal actions,
the action log in words (each game's ``describe``), the scores after every action and
the game's chart ``series``.

The log and the score history need the state before each action (who acted, what the
scores became). :class:`Chronicle` keeps those states per session and folds only the
actions it has not seen, so a change costs one ``apply``, not a replay of the game.
It works from a snapshot of the session's action list, so the view it builds is always
consistent (state, seq and log from the same actions) even while another phone plays.
Each session's steps are folded under that session's own lock: a long fold (the first
view of a long game) holds up only the phones of that game, never the other tables.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.engine import Action, Game, replay
from companion.table import MAX_SESSIONS, Session

UNDRAWN = {"shoal": ("shoals", "ascii")}
"""Parts of a game's state no page draws, left out of the light view (live events, the
answer to a page's tap); the whole view keeps them: Shoal's text picture of each shoal,
for the command line (a few hundred bytes in every Shoal event)."""


def _drawn(game: str, state: dict[str, Any]) -> dict[str, Any]:
    """``state`` without what no page draws (:data:`UNDRAWN`)."""
    if game not in UNDRAWN:
        return state
    part, key = UNDRAWN[game]
    return {**state, part: {p: {k: v for k, v in each.items() if k != key}
                            for p, each in state[part].items()}}


@dataclass(frozen=True)
class Step:
    """One applied action and what followed from it."""

    action: Action
    state: Any
    who: str | None
    text: str
    scores: dict[str, int]
    series: dict[str, dict[str, int]] | None = None
    paid: tuple[dict[str, Any], ...] = ()
    """The money the action moved, with the banker's reasons (``Game.ledger``)."""

    def entry(self, seq: int) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": seq, "who": self.who, "text": self.text,
                               "action": self.action, "scores": self.scores}
        if self.series is not None:
            out["series"] = self.series
        if self.paid:
            out["paid"] = list(self.paid)
        return out


@dataclass
class _Trace:
    """One session's folded steps; ``lock`` guards ``start`` and ``steps``."""

    game: Game[Any]
    start: Any = None
    steps: list[Step] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    light: tuple[tuple[Any, ...], dict[str, Any]] | None = None
    """The last light view and what it was built from (the last step, itself held here,
    the number of steps, how the game was closed): a change's live event and the answer
    to the tap that made it are one view built once."""


def actor(game: Game[Any], state: Any, action: Action) -> str | None:
    """Who takes ``action`` in ``state``: the player the engine's ``legal()`` names for
    that kind of action (a peek belongs to the player who drew the blank), else the
    player to act."""
    for option in game.legal(state):
        if option.type == action.get("type") and option.player is not None:
            return option.player
    return game.current(state)


class Chronicle:
    """Per-session step caches, of as many games as the table keeps (the ones touched
    last); thread-safe: the cache of caches under one short lock, each session's fold
    under its own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._traces: OrderedDict[int, _Trace] = OrderedDict()

    def _trace(self, session: Session) -> _Trace:
        """The session's cache, made if new; the least recently used beyond
        ``MAX_SESSIONS`` are let go (a fold still running on one finishes with it)."""
        with self._lock:
            trace = self._traces.get(session.id)
            if trace is None:
                trace = self._traces[session.id] = _Trace(session.game)
            self._traces.move_to_end(session.id)
            while len(self._traces) > MAX_SESSIONS:
                self._traces.popitem(last=False)
            return trace

    def steps(self, session: Session, actions: Sequence[Action]) -> tuple[Any, list[Step]]:
        """The start state and one step per action of ``actions`` (a snapshot of the
        session's log)."""
        trace = self._trace(session)
        with trace.lock:
            if trace.start is None:
                trace.start = session.game.new(session.players, session.options)
            kept = 0
            for old, new in zip(trace.steps, actions, strict=False):
                if old.action != new:
                    break
                kept += 1
            del trace.steps[kept:]
            state = trace.steps[-1].state if trace.steps else trace.start
            game = trace.game

            def record(index: int, before: Any, action: Action, after: Any) -> None:
                who = actor(game, before, action)
                trace.steps.append(Step(action, after, who, game.describe(before, action, after),
                                        game.scores(after), game.series(after) or None,
                                        tuple(game.ledger(before, action, after))))

            replay(game, state, actions[kept:], first=kept, step=record)
            return trace.start, list(trace.steps[: len(actions)])

    def view(self, session: Session, *, full: bool = True) -> dict[str, Any]:
        """The API object of a session: ``id``, ``seq``, the replay-shaped fields, the
        engine's ``legal`` actions, and either the whole ``log`` and ``timeline``
        (``full``) or just the ``last`` step (for live events; the same object again
        until the game changes)."""
        actions = list(session.actions)
        start, steps = self.steps(session, actions)
        trace = self._trace(session)
        made = (steps[-1] if steps else start, len(steps), session.closed)
        kept = trace.light
        if not full and kept is not None and kept[0][0] is made[0] and kept[0][1:] == made[1:]:
            return kept[1]     # shared: callers only read it
        game = session.game
        state = steps[-1].state if steps else start
        out: dict[str, Any] = {"id": session.id, "seq": len(actions), **game.summary(state)}
        out["title"] = game.title
        out["closed"] = session.closed
        result = game.outcome(state)
        out["reason"] = result.reason if result else None
        out["termination"] = result.termination.value if result else None
        out["options"] = _public_options(session.options)
        out["legal"] = ([] if session.closed else
                        [option.to_json() for option in game.legal(state)])
        if full:
            out["log"] = [s.entry(i) for i, s in enumerate(steps, 1)]
            out["timeline"] = [game.scores(start)] + [s.scores for s in steps]
            if game.series(start):
                out["series"] = [game.series(start)] + [s.series for s in steps]
        else:
            out["state"] = _drawn(game.name, out["state"])
            out["last"] = steps[-1].entry(len(steps)) if steps else None
            trace.light = (made, out)
        return out


    def view_at(self, session: Session, n: int) -> dict[str, Any]:
        """The game as it was after its first ``n`` actions (0: as set up), read-only:
        no legal actions, no log (the page has it)."""
        actions = list(session.actions)
        if not 0 <= n <= len(actions):
            raise IndexError(f"game {session.id} has {len(actions)} actions: look back to "
                             f"0 to {len(actions)}")
        start, steps = self.steps(session, actions)
        state = steps[n - 1].state if n else start
        out: dict[str, Any] = {"id": session.id, "seq": n, **session.game.summary(state),
                               "title": session.game.title, "legal": []}
        result = session.game.outcome(state)
        out["reason"] = result.reason if result else None
        out["options"] = _public_options(session.options)
        return out


    def ledger(self, session: Session) -> list[dict[str, Any]]:
        """Every payment of the game in order, each with the action that made it
        (``seq``) and the banker's reason (``why``): ``[]`` for games without a bank."""
        actions = list(session.actions)
        _, steps = self.steps(session, actions)
        return [{"seq": seq, **payment} for seq, step in enumerate(steps, 1)
                for payment in step.paid]


def _public_options(options: dict[str, Any]) -> dict[str, Any]:
    """Options safe to show: a digital deal is the hidden faces of the cards."""
    return {k: v for k, v in options.items() if k != "deal"}
