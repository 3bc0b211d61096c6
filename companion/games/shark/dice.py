"""The two dice and what a roll lets the player place (the variants' hooks).

Company die: red, blue, green, yellow, black, grey. A company face means that company's
building. Black or grey means a building of the player's choice:

==================  =========================================  ======================
variants            black face                                 grey face
==================  =========================================  ======================
none                any company                                any company
joker               any company or black                       any company or black
neutral             any company or grey, or remove a grey      the same
joker + neutral     any company or black                       any company or grey,
                                                               or remove a grey
==================  =========================================  ======================

Only buildings left in the supply can be chosen (so with no black building left the
joker face means "any company", as the rulebook says). A grey building to remove may be
anywhere on the board: the rulebook does not tie removal to the rolled area.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from companion.games.shark.board import Board
from companion.games.shark.state import BLACK, COMPANIES, GREY

COMPANY_DIE = (*COMPANIES, BLACK, GREY)


def allowed(face: str, variants: frozenset[str], supply: Mapping[str, int]
            ) -> tuple[list[str], bool]:
    """The buildings a company-die face lets the player place, and whether it lets them
    remove a grey building instead."""
    if face in COMPANIES:
        return ([face] if supply.get(face, 0) > 0 else []), False
    extra: list[str] = []
    remove = False
    joker, neutral = "joker" in variants, "neutral" in variants
    if joker and (face == BLACK or not neutral):
        extra = [BLACK]
    if neutral and (face == GREY or not joker):
        extra, remove = [GREY], True
    return [b for b in (*COMPANIES, *extra) if supply.get(b, 0) > 0], remove


def roll(board: Board, rng: random.Random) -> tuple[str, str]:
    """Roll both dice: (company face, area face)."""
    return rng.choice(COMPANY_DIE), rng.choice(board.area_die)
