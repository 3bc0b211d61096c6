"""The log's lines for Shoal, in the rulebook's words.

``PHRASES`` maps an action type to a function of (state before, action, state after)
that says what happened after the player's name; :func:`describe` adds the name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.engine import Action
from companion.games.shoal.layout import FISH, count
from companion.words import plural

if TYPE_CHECKING:
    from companion.games.shoal.rules import ShoalState


def _play(before: ShoalState, action: Action, after: ShoalState) -> str:
    who = before.player
    x, y = action["at"]                         # the rules accepted it: two whole numbers
    fish = count(after.shoals[who], FISH)
    laid = len(after.plays[who])
    return (f"{where_laid(action.get('card'), x, y, first=laid == 1)}: "
            f"{plural(laid, 'card')} laid, {plural(fish, 'fish', 'fish')} in view")


def where_laid(card: object, x: int, y: int, first: bool) -> str:
    """Where a card went, from the player's first card, as a player would point.

    ``"started the shoal with F22"``, ``"laid F07 on the first card"``,
    ``"laid F12 1 section right and 2 down from the first card"``.
    """
    if first:
        return f"started the shoal with {card}"
    ways = [(x, "right" if x > 0 else "left"), (y, "down" if y > 0 else "up")]
    steps = [(abs(n), way) for n, way in ways if n]
    if not steps:
        return f"laid {card} on the first card"
    words = [f"{plural(n, 'section')} {way}" if i == 0 else f"{n} {way}"
             for i, (n, way) in enumerate(steps)]
    return f"laid {card} {' and '.join(words)} from the first card"


def _tally(before: ShoalState, action: Action, after: ShoalState) -> str:
    who = action["player"]                      # the rules accepted it: a player
    shoal = after.shoals[who]
    again = " again" if who in before.tallied else ""
    return (f"tallied the shoal{again} as it lies: {plural(len(shoal), 'section')}, "
            f"{plural(count(shoal, FISH), 'fish', 'fish')} in view")


PHRASES: dict[str, Callable[[ShoalState, Action, ShoalState], str]] = {"play": _play,
                                                                       "tally": _tally}


def describe(before: ShoalState, action: Action, after: ShoalState) -> str:
    """``"Ann laid F07 1 section right from the first card: 2 cards laid, 9 fish in view."``,
    ``"Ben tallied the shoal as it lies: 14 sections, 21 fish in view."``"""
    kind = str(action.get("type"))
    who = action["player"] if kind == "tally" else before.player
    text = f"{who} {PHRASES[kind](before, action, after)}."
    if after.over and not before.over:
        text += (" The game is over: every shoal is counted." if after.tallied else
                 f" The game is over: every player has laid {len(after.plays[who])} cards.")
    return text
