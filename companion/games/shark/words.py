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
from companion.grid import Cell
from companion.words import listed, money, plural

TIMES = "\u00d7"

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
    cell = Cell.parse(action.get("cell"))       # the rules accepted it
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
    return f"removed the grey building at {Cell.parse(action.get('cell'))}"


def _trade(verb: str) -> Callable[[SharkState, Action, SharkState], str]:
    def phrase(before: SharkState, action: Action, after: SharkState) -> str:
        count, company = int(action.get("count", 0)), action.get("company")
        price = before.prices.get(str(company), 0)
        return (f"{verb} {plural(count, f'{company} share')} at {money(price)} "
                f"for {money(price * count)}")
    return phrase


def _forced_sell(before: SharkState, action: Action, after: SharkState) -> str:
    """``"sold 1 red at $1,000 to cover a $4,000 loss"``."""
    count, company = int(action.get("count", 0)), str(action.get("company"))
    who = str(action.get("player"))
    forced = sum(p.amount for p in after.payments if p.kind == "sale" and p.player == who)
    owed = before.debts[0][1] if before.debts else 0
    text = (f"sold {count} {company} at {money(forced // count if count else 0)} to cover "
            f"a {money(owed)} loss")
    if any(p.kind == "loss" and p.player == who for p in after.payments):
        text += ": the loss is paid"
    return text


def _moved(before: SharkState, after: SharkState, player: str, rising: bool) -> str:
    """`` (2 blue shares times $1,000)`` (with a times sign): why a dividend or a loss is
    what it is, when one company's price change explains it."""
    changed = [(c, after.prices[c] - old) for c, old in before.prices.items()
               if (after.prices[c] > old if rising else after.prices[c] < old)
               and after.shares[player].get(c, 0) + before.shares[player].get(c, 0)]
    if len(changed) != 1:
        return ""
    company, change = changed[0]
    held = before.shares[player].get(company, 0)
    return f" ({plural(held, f'{company} share')} {TIMES} {money(abs(change))})" if held else ""


def banker(before: SharkState, action: Action, after: SharkState) -> str:
    """What the bank paid and was paid because of the action, beyond the action's own
    purchase or sale: dividends, losses (who pays whom), and a forced sale to come."""
    out = []
    dividends = [p for p in after.payments if p.kind == "dividend"]
    if dividends:
        out.append("The bank pays " + listed(
            f"{p.player} a {money(p.amount)} dividend{_moved(before, after, p.player, True)}"
            for p in dividends) + ".")
    seller = action.get("player") if action.get("type") == "forced_sell" else None
    losses = [p for p in after.payments if p.kind == "loss" and p.amount < 0
              and p.player != seller]      # the seller's own: "the loss is paid"
    for p in losses:
        out.append(f"{p.player} pays the bank {money(-p.amount)} for the loss"
                   f"{_moved(before, after, p.player, False)}.")
    if after.debtor and after.debts != before.debts:
        who, owed, _ = after.debts[0]
        out.append(f"{who} owes the bank {money(owed)} for the loss, is "
                   f"{money(owed - after.cash[who])} short and must sell shares.")
    return " ".join(out)


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
    said = banker(before, action, after)
    if said:
        text += f" {said}"
    for player in after.bankrupt[len(before.bankrupt):]:
        text += f" {player} is bankrupt and out of the game."
    if after.ended and not before.ended:
        text += f" The game is over: {after.ended.reason}."
    return text
