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
    at = action.get("at")
    where = f"[{at[0]}, {at[1]}]" if isinstance(at, list | tuple) and len(at) == 2 else at
    fish = count(after.shoals[who], FISH)
    laid = len(after.plays[who])
    return (f"laid {action.get('card')} at {where}: {plural(laid, 'card')} laid, "
            f"{plural(fish, 'fish', 'fish')} in view")


PHRASES: dict[str, Callable[[ShoalState, Action, ShoalState], str]] = {"play": _play}


def describe(before: ShoalState, action: Action, after: ShoalState) -> str:
    """``"Ann laid F07 at [1, 0]: 2 cards laid, 9 fish in view."``"""
    text = f"{before.player} {PHRASES[str(action.get('type'))](before, action, after)}."
    if after.over and not before.over:
        text += f" The game is over: every player has laid {len(after.plays[before.player])} cards."
    return text
