"""The log's lines for Tokyo Poo Divers, in the rulebook's words.

``PHRASES`` maps an action type to a function of (state before, action, state after)
that says what happened after the player's name; :func:`describe` adds the name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.engine import Action
from companion.grid import DIRECTIONS, Cell, run
from companion.words import listed, ordinal, plural

if TYPE_CHECKING:
    from companion.games.poodivers.rules import PooState

FACE = {"blank": "a blank", "sleeper": "a sleeper", "object": "an object"}


def _paid(before: PooState, after: PooState, who: str) -> str:
    """The turds the bank handed over: "1 golden and 2 brown turds"."""
    was, now = before.holdings[who], after.holdings[who]
    golden, brown = now["golden"] - was["golden"], now["brown"] - was["brown"]
    if golden < 0 or brown < 0:      # five brown went back for a golden
        return f"now {listed(_turds(now['golden'], now['brown']))}"
    return listed(_turds(golden, brown), "no turds: the supply is empty")


def _turds(golden: int, brown: int) -> list[str]:
    out = []
    if golden:
        out.append(plural(golden, "golden turd"))
    if brown:
        out.append(plural(brown, "brown turd"))
    return out


def _banked(before: PooState, after: PooState, points: int) -> str:
    who = before.player
    return f"{plural(points, 'point')} banked ({_paid(before, after, who)})"


def _flip(before: PooState, action: Action, after: PooState) -> str:
    cell = Cell.parse(action.get("cell"))
    face = after.cells.get(cell, "closed")
    text = f"flipped {cell}: {FACE.get(face, face)}"
    if face == "blank":
        if before.diving:
            return f"{text}; the {plural(before.turn_points, 'point')} of the dive are lost"
        return f"{text}; the turn passes"
    if face == "sleeper":
        if before.diving:
            return f"{text}; {_banked(before, after, before.turn_points)}"
        return f"{text}; {before.player} flips again"
    if before.diving:
        found = before.found + 1
        total = before.turn_points + found
        text += f", the {ordinal(found)} of the dive, worth {plural(found, 'point')}"
    else:
        total = 1 + sum(len(run(after.cells, cell, d, "object")) for d in DIRECTIONS)
        text += f" worth {plural(total, 'point')}"
    if not after.diving:
        text += f"; no closed card to flip next: {_banked(before, after, total)}"
    return text


def _bank(before: PooState, action: Action, after: PooState) -> str:
    points = before.turn_points
    return f"banked {plural(points, 'point')} ({_paid(before, after, before.player)})"


def _peek(before: PooState, action: Action, after: PooState) -> str:
    return f"peeked at {Cell.parse(action.get('cell'))}"


PHRASES: dict[str, Callable[[PooState, Action, PooState], str]] = {
    "flip": _flip, "bank": _bank, "peek": _peek,
}


def describe(before: PooState, action: Action, after: PooState) -> str:
    """``"Ann flipped C4: an object worth 3 points."``"""
    kind = str(action.get("type"))
    who = before.peek_for if kind == "peek" and before.peek_for else before.player
    return f"{who} {PHRASES[kind](before, action, after)}."
