"""Random legal Dr. Shark games: the one driver (``tests.support.driver``) with a table's
habits: the dive is entered before START (with ``late`` > 0 the timer is sometimes
started first, and the dive sometimes never entered: a timer-only turn), the clock
seldom beats the searcher, and no one tallies before the last round."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from companion.games.drshark import GAME, DrSharkState
from companion.games.drshark.dossier import counted
from tests.support import driver

Action = dict[str, Any]


def habits(late: float = 0.0) -> dict[str, float]:
    return {"tally": 0.0, "start_search": late or 1e-9, "time_up": 0.1, "stop": 0.05,
            "skip_service": 0.3}


def spy(state: DrSharkState) -> driver.Pick:
    """Often a clue that completes evidence the dossier has begun, as a spy would."""
    cat = state.catalogue
    have = {(cat.clue(c).evidence, cat.clue(c).part) for c in state.mine.clues}
    begun = {e for e, _ in have}

    def pick(field: str, values: list[Any], rnd: random.Random) -> Any:
        if field == "clue":
            wanted = [c for c in values if cat.clue(c).evidence in begun
                      and (cat.clue(c).evidence, cat.clue(c).part) not in have]
            if wanted and rnd.random() < 0.6:
                return rnd.choice(wanted)
        return rnd.choice(values)
    return pick


def random_game(players: list[str], options: dict[str, Any], seed: int,
                late: float = 0.0) -> tuple[list[Action], list[DrSharkState]]:
    """Actions and every state of one random legal game, played to its end."""
    moves = list(driver.play(GAME, players, options, seed, limit=5000,
                             weights=habits(late), habits=spy))
    assert moves and GAME.is_over(moves[-1][2])
    return [a for _, a, _ in moves], [moves[0][0], *(after for _, _, after in moves)]


def tally_of(state: DrSharkState) -> Action:
    """The tally a table would count from the dossiers as they are."""
    return {"type": "tally", "dossiers": counted(state.dossiers)}


def every_clue(state: DrSharkState) -> Counter[str]:
    """Bag + dossiers + box + mat, as a multiset of clue ids."""
    where: Counter[str] = Counter(state.bag)
    for d in state.dossiers.values():
        where.update(d.clues)
    where.update(state.box)
    if state.search:
        where.update(state.search.clues)
    return where
