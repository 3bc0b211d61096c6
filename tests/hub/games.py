"""Games played to their end in-process, for the hub's tests: seeded picks from the
engines' ``legal`` (a refused pick changes nothing), undos now and then."""

from __future__ import annotations

import random
from contextlib import suppress
from typing import Any

from companion.engine import IllegalAction
from companion.table import Table
from tests.web.scripted import choose

PLAYERS = ["Ann", "Ben", "Cy"]
TALLY = {"type": "tally", "dossiers": {"Ann": {"clues": 3}, "Ben": {"clues": 1},
                                       "Cy": {"clues": 3}}}
"""Ends a Dr. Shark game with Ann and Cy tied."""


def play(table: Table, game: str, seed: int, *, steps: int = 10_000,
         undo_every: float = 0.05, players: list[str] | None = None) -> int:
    """Create a game and play it (to its end, or ``steps`` actions); its id."""
    rnd = random.Random(seed)
    options: dict[str, Any] = {"digital": True} if game == "poodivers" else {}
    session = table.create(game, players or PLAYERS, options, seed=seed)
    for _ in range(steps):
        if session.game.is_over(session.state):
            break
        if game == "drshark":
            table.play(session.id, TALLY)
            continue
        if session.seq and rnd.random() < undo_every:
            table.undo(session.id)
            continue
        action = choose([e.to_json() for e in session.game.legal(session.state)], rnd)
        if action is None:
            break
        with suppress(IllegalAction, ValueError):
            table.play(session.id, action)
    return session.id
