"""The log's lines for Shark, in the rulebook's words, with the banker's money.

``PHRASES`` maps an action type to a function of (state before, action, state after)
that says what happened after the player's name; :func:`describe` adds the name and
what followed from it (bankruptcies, the end of the game). :func:`payments` gives each
payment of the action with the banker's reason, for the money ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.engine import Action
from companion.games.shark import chains
from companion.games.shark.state import BLACK, COMPANIES
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
    removed = [plural(n - before.removed.get(c, 0), f"{c} building")
               for c, n in after.removed.items() if n > before.removed.get(c, 0)]
    news = [f"the takeover removes {listed(removed)}"] if removed else []
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


def _times(before: SharkState, player: str, changes: list[tuple[str, int]]) -> str:
    """`` (2 blue shares TIMES $1,000)``: why a dividend or a loss is what it is."""
    if not changes:
        return ""
    each = (f"{plural(before.shares[player][c], c + ' share')} {TIMES} {money(abs(change))}"
            for c, change in changes)
    return f" ({listed(each)})"


def _moved(before: SharkState, after: SharkState, player: str, rising: bool
           ) -> list[tuple[str, int]]:
    """The companies whose price rose (or fell) and of which ``player`` held shares
    when the building was placed, in the bank's order, with the change."""
    return [(c, after.prices[c] - before.prices[c]) for c in COMPANIES
            if (after.prices[c] > before.prices[c] if rising else
                after.prices[c] < before.prices[c]) and before.shares[player][c]]


def banker(before: SharkState, action: Action, after: SharkState) -> str:
    """What the bank paid and was paid because of the action, beyond the action's own
    purchase or sale: dividends, losses (who pays whom), and a forced sale to come."""
    out = []
    rises = {p: _moved(before, after, p, True) for p in before.players}
    dividends = []
    for p in after.payments:      # one a company a shareholder, in the bank's order
        if p.kind == "dividend":
            why = _times(before, p.player, rises[p.player][:1])
            del rises[p.player][:1]
            dividends.append(f"{p.player} a {money(p.amount)} dividend{why}")
    if dividends:
        out.append(f"The bank pays {listed(dividends)}.")
    seller = action.get("player") if action.get("type") == "forced_sell" else None
    losses = [p for p in after.payments if p.kind == "loss" and p.amount < 0
              and p.player != seller]      # the seller's own: "the loss is paid"
    for p in losses:
        out.append(f"{p.player} pays the bank {money(-p.amount)} for the loss"
                   f"{_times(before, p.player, _moved(before, after, p.player, False))}.")
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


# The banker's reasons, one a payment ------------------------------------------------


def _rose(company: str, old: int, new: int) -> str:
    return f"{company}'s price {'rose' if new > old else 'fell'} from {money(old)} to {money(new)}"


def _per_share(before: SharkState, after: SharkState, player: str, company: str) -> str:
    """``"blue's price rose from $1,000 to $2,000: 4 shares TIMES $1,000"``."""
    old, new = before.prices[company], after.prices[company]
    held = before.shares[player][company]
    return f"{_rose(company, old, new)}: {plural(held, 'share')} {TIMES} {money(abs(new - old))}"


def _bonus_why(before: SharkState, action: Action, after: SharkState) -> str:
    """Why the placer earns a bonus (the rulebook's three kinds, and the pioneer's)."""
    cell = before.board.cell(Cell.parse(action.get("cell")))  # the rules accepted it
    building = after.buildings.get(cell) or str(action.get("company"))  # may go unsaid
    if building == BLACK:
        top = max(COMPANIES, key=lambda c: before.prices[c])
        return (f"bonus for the black building at {cell}: {top}'s "
                f"{money(before.prices[top])}, the highest price on the board")
    plan = chains.examine(before.buildings, before.board, cell, building)
    _, _, raised = chains.place(before.buildings, plan)
    what = "a lone building" if plan.lone else f"a chain of {len(plan.group)}"
    if raised > before.prices[building]:
        return (f"bonus for {what} at {cell}: {building}'s new price (up from "
                f"{money(before.prices[building])})")
    if after.pioneered and not before.pioneered:
        area = before.board.describe(before.board.areas[cell])
        return f"pioneer bonus: {cell} is the first {building} building in {area}"
    return f"bonus for a lone building at {cell}"


def _loss_why(before: SharkState, action: Action, after: SharkState, player: str,
              amount: int) -> str:
    """Why ``player`` pays the bank ``amount`` for a loss (or everything: bankrupt)."""
    if action.get("type") == "place":
        fell = _moved(before, after, player, False)
        owed = sum(-change * before.shares[player][c] for c, change in fell)
        why = "; ".join(_per_share(before, after, player, c) for c, _ in fell)
    else:           # settled after a forced sale: the loss of the turn's building
        owed = next((o for p, o, _ in before.debts if p == player), amount)
        why = "the building placed this turn"
    if player in after.bankrupt and player not in before.bankrupt:
        return (f"bankrupt: the {money(owed)} loss ({why}) is more than {player}'s cash "
                "and shares at the forced price, so all the cash goes to the bank and "
                "every share back to the supply")
    if action.get("type") == "place":
        return f"loss, as {why}"
    return f"the {money(owed)} loss of the building placed this turn, paid after the sale"


def _sale_why(before: SharkState, action: Action, player: str, amount: int) -> str:
    company = str(action.get("company"))
    count = int(action.get("count", 0))
    shares = plural(count, f"{company} share")
    if action.get("type") == "forced_sell":
        price = before.prices[company]
        return (f"forced sale of {shares} at {money(amount // count if count else 0)} "
                f"each: half of {money(price)}, rounded down to a whole $1,000")
    verb = "bought" if action.get("type") == "buy" else "sold"
    return f"{verb} {shares} at {money(before.prices[company])} each"


def payments(before: SharkState, action: Action, after: SharkState) -> list[dict[str, Any]]:
    """The money ``action`` moved, in the order the bank paid it: ``{"player", "kind",
    "amount", "why"}`` each, ``why`` in the banker's words::

        {"player": "Cid", "kind": "dividend", "amount": 4000,
         "why": "dividend, as blue's price rose from $1,000 to $2,000: 4 shares TIMES $1,000"}

    (``TIMES`` is the times sign.)
    """
    out = []
    rises = {p: _moved(before, after, p, True) for p in before.players}
    for p in after.payments:
        if p.kind in ("purchase", "sale"):
            why = _sale_why(before, action, p.player, p.amount)
        elif p.kind == "bonus":
            why = _bonus_why(before, action, after)
        elif p.kind == "dividend" and rises[p.player]:
            company, _ = rises[p.player].pop(0)
            why = f"dividend, as {_per_share(before, after, p.player, company)}"
        elif p.kind == "loss":
            why = _loss_why(before, action, after, p.player, -p.amount)
        else:
            why = p.kind
        out.append({"player": p.player, "kind": p.kind, "amount": p.amount, "why": why})
    return out
