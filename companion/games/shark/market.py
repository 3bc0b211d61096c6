"""Market and bank: shares, trading, bonuses, dividends, losses, forced sales, bankruptcy.

Every movement of money is a :class:`Payment` kept in ``state.payments`` (those of the
last action, so the banker sees what to hand out, each with the banker's reason once the
action is done: ``words.payments``) and summed in ``state.totals``.

Losses (RULINGS.md): after a placement every company whose price changed pays its
shareholders (new - old) x shares when it rose; when it fell every shareholder but the
player whose turn it is owes (old - new) x shares. Dividends are all paid first; then
the losses are settled player by player in seat order starting after the current
player (a player's losses from several companies are settled as one sum). A player who
cannot pay in cash sells shares of their choice at the forced price (half the price,
rounded down to $1000) until the loss is covered; a player whose cash and shares at the
forced price together cannot cover what the placement makes them owe is declared
bankrupt at once: every share goes back to the supply (not sold), all cash goes to the
bank, no ``forced_sell`` is asked, and the player is out. Shares at a forced
price of $0 cannot help, so they are not offered in a forced sale.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from companion.engine import BrokenRule, NotYourTurn
from companion.games.shark.state import (
    BUY_LIMIT,
    COMPANIES,
    FORCED_SALE,
    Payment,
    SharkState,
)
from companion.words import money, plural

TIMES = "\u00d7"


def forced_price(price: int) -> int:
    """Half the price rounded down to a multiple of $1000: 6000 -> 3000, 3000 -> 1000."""
    return price // 2 // 1000 * 1000


def pay(state: SharkState, payments: list[Payment]) -> SharkState:
    """Move the money of ``payments`` between the bank and the players."""
    if not payments:
        return state
    cash, totals = dict(state.cash), dict(state.totals)
    for p in payments:
        cash[p.player] += p.amount
        assert cash[p.player] >= 0, f"{p.player} would have negative cash"
        totals[p.kind] = totals.get(p.kind, 0) + p.amount
    return replace(state, cash=cash, totals=totals,
                   payments=state.payments + tuple(payments))


def move_shares(state: SharkState, player: str, company: str, count: int) -> SharkState:
    """``count`` shares from the supply to the player (negative: back to the supply)."""
    mine = {**state.shares[player], company: state.shares[player][company] + count}
    supply = {**state.supply_shares, company: state.supply_shares[company] - count}
    return replace(state, shares={**state.shares, player: mine}, supply_shares=supply)


def choose_stock(state: SharkState, company: str) -> SharkState:
    """Setup: the player takes one share of any company, free."""
    return move_shares(state, state.player, company, 1)


def _tradeable(state: SharkState, company: str) -> int:
    price = state.prices[company]
    if price < 1000:
        raise BrokenRule(f"{company} is at {money(price)}: shares of a company below "
                            "$1000 cannot be bought or sold")
    return price


def buy(state: SharkState, company: str, count: int) -> SharkState:
    price = _tradeable(state, company)
    player = state.player
    left = BUY_LIMIT - state.bought
    if count > left:
        raise BrokenRule(f"a player may buy {BUY_LIMIT} shares a turn and {player} bought "
                            f"{state.bought} already: buy at most {left} more")
    if count > state.supply_shares[company]:
        raise BrokenRule(f"the bank has {state.supply_shares[company]} {company} shares "
                            f"left, not {count}")
    cost = price * count
    if cost > state.cash[player]:
        raise BrokenRule(f"{count} {company} shares at {money(price)} cost {money(cost)} "
                            f"and {player} has {money(state.cash[player])}")
    state = move_shares(state, player, company, count)
    state = replace(state, bought=state.bought + count)
    return pay(state, [Payment(player, "purchase", -cost)])


def buyable(state: SharkState) -> dict[str, int]:
    """Company -> the most shares of it the player whose turn it is may buy now: what the
    turn's limit, the bank's supply and the player's cash allow (companies at $1000 or
    more; none where not even one share can be bought)."""
    left, cash = BUY_LIMIT - state.bought, state.cash[state.player]
    out = {}
    for company in COMPANIES:
        price = state.prices[company]
        most = min(left, state.supply_shares[company], cash // price) if price >= 1000 else 0
        if most > 0:
            out[company] = most
    return out


def sell(state: SharkState, company: str, count: int) -> SharkState:
    price = _tradeable(state, company)
    player = state.player
    held = state.shares[player][company]
    if count > held:
        raise BrokenRule(f"{player} holds {held} {company} shares, not {count}")
    state = move_shares(state, player, company, -count)
    return pay(state, [Payment(player, "sale", price * count)])


def settle(state: SharkState, old: Mapping[str, int]) -> SharkState:
    """Dividends, then queue the losses of every company whose price changed since
    ``old`` and settle them as far as cash allows. A debt says what it is for in the
    banker's words: "green's price fell from $3,000 to $1,000: 2 shares TIMES $2,000"
    (TIMES the times sign), one such part a company, joined by "; "."""
    dividends = []
    owed: dict[str, int] = dict.fromkeys(state.players, 0)
    why: dict[str, list[str]] = {p: [] for p in state.players}
    for company in COMPANIES:
        change = state.prices[company] - old[company]
        for player in state.active():
            held = state.shares[player][company]
            if not held or not change:
                continue
            if change > 0:
                dividends.append(Payment(player, "dividend", change * held))
            elif player != state.player:
                owed[player] += -change * held
                why[player].append(
                    f"{company}'s price fell from {money(old[company])} to "
                    f"{money(state.prices[company])}: {plural(held, 'share')} {TIMES} "
                    f"{money(-change)}")
    state = pay(state, dividends)
    seats = len(state.players)
    order = [state.players[(state.seat + i) % seats] for i in range(1, seats)]
    debts = tuple((p, owed[p], "; ".join(why[p])) for p in order if owed[p] > 0)
    return collect(replace(state, debts=state.debts + debts))


def collect(state: SharkState) -> SharkState:
    """Settle the queued losses in order; stop at a debtor who must choose shares to sell
    (step ``forced_sale``). With no debts left the step is left for the turn to set."""
    while state.debts:
        player, owed, _ = state.debts[0]
        cash = state.cash[player]
        if cash >= owed:
            state = pay(state, [Payment(player, "loss", -owed)])
        elif cash + _forced_value(state, player) >= owed:
            return replace(state, step=FORCED_SALE)
        else:
            state = _bankrupt(state, player)
        state = replace(state, debts=state.debts[1:])
    return state


def _forced_value(state: SharkState, player: str) -> int:
    return sum(forced_price(state.prices[c]) * n for c, n in state.shares[player].items())


def _bankrupt(state: SharkState, player: str) -> SharkState:
    """Declared by the banker at once: every share back to the supply (not sold), all
    cash to the bank, and the player is out (RULINGS.md)."""
    for company, held in state.shares[player].items():
        if held:
            state = move_shares(state, player, company, -held)
    state = pay(state, [Payment(player, "loss", -state.cash[player])])
    return replace(state, bankrupt=(*state.bankrupt, player))


def _forced_sale(state: SharkState, player: str, company: str, count: int) -> SharkState:
    fp = forced_price(state.prices[company])
    state = move_shares(state, player, company, -count)
    return pay(state, [Payment(player, "sale", fp * count)])


def forced_sellable(state: SharkState) -> dict[str, int]:
    """Company -> the most shares of it the debtor may sell at the forced price: what
    they hold, up to what covers the loss (shares at a forced price of $0 cannot help)."""
    debtor, owed, _ = state.debts[0]
    short = owed - state.cash[debtor]
    out = {}
    for company in COMPANIES:
        fp, held = forced_price(state.prices[company]), state.shares[debtor][company]
        if fp > 0 and held > 0:
            out[company] = min(held, -(-short // fp))
    return out


def forced_sell(state: SharkState, player: str, company: str, count: int) -> SharkState:
    """The debtor sells shares at the forced price; the loss is paid once covered."""
    debtor, owed, _ = state.debts[0]
    if player != debtor:
        raise NotYourTurn(f"{debtor} owes {money(owed)} and must sell shares now, not "
                            f"{player}")
    held = state.shares[player][company]
    if count > held:
        raise BrokenRule(f"{player} holds {held} {company} shares, not {count}")
    fp = forced_price(state.prices[company])
    if fp == 0:
        raise BrokenRule(f"{company} shares sell for $0 in a forced sale (half of "
                            f"{money(state.prices[company])}, rounded down to $1000): sell "
                            "shares of another company")
    short = owed - state.cash[player]
    needed = -(-short // fp)
    if count > needed:
        raise BrokenRule(f"{player} is {money(short)} short and {needed} {company} shares "
                            f"at {money(fp)} cover it: sell at most {needed}")
    state = _forced_sale(state, player, company, count)
    return collect(state)
