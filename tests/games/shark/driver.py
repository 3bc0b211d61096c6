"""Random legal games of Shark, played the way a lively table might (for the property
tests and to make the complete-game records in ``records/``)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations
from typing import Any

from companion.games.shark import GAME, SharkState
from companion.games.shark.market import forced_price

VARIANT_SETS = [list(c) for n in range(4) for c in combinations(("joker", "neutral",
                                                                  "pioneer"), n)]


def choose(state: SharkState, rnd: random.Random, greed: float = 0.5) -> dict[str, Any]:
    """A legal action: trades now and then (``greed``), otherwise the turn goes on."""
    legal = {x.type: x for x in GAME.legal(state)}
    trades = [t for t in ("buy", "sell") if t in legal]
    if trades and rnd.random() < greed:
        kind = "buy" if "buy" in trades and rnd.random() < 0.7 else rnd.choice(trades)
    else:
        kind = next(t for t in ("choose_stock", "roll", "place", "remove_neutral",
                                "forced_sell", "end_turn") if t in legal)
        if kind == "place" and "remove_neutral" in legal and rnd.random() < 0.2:
            kind = "remove_neutral"
    if kind == "choose_stock":
        return {"type": kind, "company": rnd.choice(list(legal[kind].choices["company"]))}
    if kind == "roll":
        return {"type": kind}                       # the companion rolls: see play()
    if kind in ("place", "remove_neutral"):
        options = GAME.view(state)["pending"]["choices"]
        if kind == "remove_neutral":
            return {"type": kind, "cell": rnd.choice(options["remove_neutral"])}
        building = rnd.choice([b for b in options if b != "remove_neutral"])
        return {"type": kind, "cell": rnd.choice(options[building]), "company": building}
    if kind == "end_turn":
        return {"type": kind}
    me = state.player
    if kind == "buy":
        can = list(legal[kind].choices["company"])
        company = rnd.choice(can)
        price = state.prices[company]
        top = min(5 - state.bought, state.cash[me] // price, state.supply_shares[company])
        return {"type": kind, "company": company, "count": rnd.randint(1, top)}
    if kind == "sell":
        company = rnd.choice(list(legal[kind].choices["company"]))
        return {"type": kind, "company": company,
                "count": rnd.randint(1, state.shares[me][company])}
    debtor, owed, _ = state.debts[0]
    company = rnd.choice(list(legal[kind].choices["company"]))
    fp = forced_price(state.prices[company])
    needed = -(-(owed - state.cash[debtor]) // fp)
    return {"type": kind, "player": debtor, "company": company,
            "count": rnd.randint(1, min(needed, state.shares[debtor][company]))}


def play(players: list[str], options: dict[str, Any], seed: int, limit: int = 400,
         greed: float = 0.5) -> Iterator[tuple[SharkState, dict[str, Any], SharkState]]:
    """Play a random game: yields (before, action as logged, after) for every action."""
    rnd = random.Random(seed)
    state = GAME.new(players, options)
    for _ in range(limit):
        if GAME.is_over(state):
            return
        action = GAME.resolve(state, choose(state, rnd, greed), rnd)
        after = GAME.apply(state, action)
        yield state, action, after
        state = after
