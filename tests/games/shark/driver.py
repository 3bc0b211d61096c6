"""Random legal games of Shark for the property tests and the records in ``records/``:
the one driver (``tests.support.driver``) with a trading habit (``greed``)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from companion.games.shark import GAME, SharkState
from tests.support import driver

VARIANT_SETS = [list(c) for n in range(4) for c in combinations(("joker", "neutral",
                                                                  "pioneer"), n)]


def play(players: list[str], options: dict[str, Any], seed: int, limit: int = 400,
         greed: float = 0.5) -> Iterator[tuple[SharkState, dict[str, Any], SharkState]]:
    """Play a random game: yields (before, action as logged, after) for every action.
    With ``greed`` near 1 the players trade often, near 0 the turns just go on."""
    weights = {"buy": 4 * greed, "sell": 2 * greed}
    return driver.play(GAME, players, options, seed, limit, weights)
