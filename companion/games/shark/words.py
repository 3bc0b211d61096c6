"""The log's lines for Shark, in the rulebook's words, with the banker's money.

``PHRASES`` maps an action type to a function of (state before, action, state after)
that says what happened after the player's name; :func:`describe` adds the name and
what followed from it (bankruptcies, the end of the game). The payments of the action
are in ``after.payments`` for a richer ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.engine import Action
from companion.words import listed, money, plural

if TYPE_CHECKING:
    from companion.games.shark.state import SharkState


def _area(state: SharkState, area: str) -> str:
    return state.board.describe(area)


def _changes(before: SharkState, after: SharkState) -> list[str]:
    """Price changes: "red rises to $3,000", "green falls to $0"."""
    out = []
    for company, old in before.prices.items():
        new = after.prices[company]
        if new != old:
            out.append(f"{company} {'rises' if new > old else 'falls'} to {money(new)}")
    return out


def _bonus(after: SharkState, who: str) -> int:
    return sum(p.amount for p in after.payments if p.kind == "bonus" and p.player == who)


def _choose_stock(before: SharkState, action: Action, after: SharkState) -> str:
    return f"took a free {action.get('company')} share"


def _roll(before: SharkState, action: Action, after: SharkState) -> str:
    text = f"rolled {action.get('company')} and {_area(before, str(action.get('area')))}"
    return f"{text}: {after.skipped}" if after.skipped else text


def _place(before: SharkState, action: Action, after: SharkState) -> str:
    cell = str(action.get("cell", "")).upper()
    building = after.buildings.get(cell) or action.get("company")
    text = f"built a {building} building at {cell}"
    news = [f"the takeover removes {plural(n - before.removed[c], f'{c} building')}"
            for c, n in after.removed.items() if n > before.removed.get(c, 0)]
    news += _changes(before, after)
    if news:
        text += f": {listed(news)}"
    bonus = _bonus(after, before.player)
    return f"{text}; {before.player} earns a {money(bonus)} bonus" if bonus else text


def _remove_neutral(before: SharkState, action: Action, after: SharkState) -> str:
    return f"removed the grey building at {str(action.get('cell', '')).upper()}"


def _trade(verb: str) -> Callable[[SharkState, Action, SharkState], str]:
    def phrase(before: SharkState, action: Action, after: SharkState) -> str:
        count, company = int(action.get("count", 0)), action.get("company")
        price = before.prices.get(str(company), 0)
        return (f"{verb} {plural(count, f'{company} share')} at {money(price)} "
                f"for {money(price * count)}")
    return phrase


def _forced_sell(before: SharkState, action: Action, after: SharkState) -> str:
    count, company = int(action.get("count", 0)), str(action.get("company"))
    forced = sum(p.amount for p in after.payments if p.kind == "sale")
    return (f"sold {plural(count, f'{company} share')} to the bank at the forced price, "
            f"for {money(forced)}, to pay a loss")


def _end_turn(before: SharkState, action: Action, after: SharkState) -> str:
    return "ended the turn"


PHRASES: dict[str, Callable[[SharkState, Action, SharkState], str]] = {
    "choose_stock": _choose_stock, "roll": _roll, "place": _place,
    "remove_neutral": _remove_neutral, "buy": _trade("bought"), "sell": _trade("sold"),
    "forced_sell": _forced_sell, "end_turn": _end_turn,
}


def describe(before: SharkState, action: Action, after: SharkState) -> str:
    """``"Ann built a red building at C4: red rises to $3,000 and a $3,000 bonus."``"""
    kind = str(action.get("type"))
    who = str(action.get("player")) if kind == "forced_sell" else (
        before.debtor or before.player)
    text = f"{who} {PHRASES[kind](before, action, after)}."
    for player in after.bankrupt[len(before.bankrupt):]:
        text += f" {player} is bankrupt and out of the game."
    if after.ended and not before.ended:
        text += f" The game is over: {after.ended.reason}."
    return text
