"""What Shark's ``legal()`` offers is exactly what ``apply()`` accepts (issue 15): every
combination of an entry's choices is accepted (a buy the player can afford, within the
turn's 5 and the bank's supply, of a company at $1000 or more), and one share more of
any company is refused."""

from __future__ import annotations

import random
from itertools import product
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import IllegalAction
from companion.games.shark import GAME, SharkState
from tests.games.shark.driver import VARIANT_SETS, play
from tests.games.shark.position import drawn, holding, started
from tests.games.shark.position import play as played

COMPANIES = ("red", "blue", "green", "yellow")
COUNTED = ("buy", "sell", "forced_sell")


def accepted(state: SharkState, action: dict[str, Any]) -> bool:
    """Whether the rules take ``action`` (a roll is rolled by the companion first)."""
    try:
        GAME.apply(state, GAME.resolve(state, action, random.Random(0)))
    except IllegalAction:
        return False
    return True


def offered(state: SharkState) -> list[dict[str, Any]]:
    """Every action the legal entries spell out, each combination of choices."""
    out = []
    for entry in GAME.legal(state):
        fields = sorted(entry.choices)
        for values in product(*(entry.choices[f] for f in fields)):
            out.append({"type": entry.type, **dict(zip(fields, values, strict=True))})
    return out


def check_offers(state: SharkState) -> None:
    actions = offered(state)
    for action in actions:
        assert accepted(state, action), action
    for kind in {a["type"] for a in actions} & set(COUNTED):
        most: dict[str, int] = {}
        for a in actions:
            if a["type"] == kind:
                most[a["company"]] = max(most.get(a["company"], 0), a["count"])
        extra = {k: v for k, v in actions[0].items() if k == "player"}
        for company in COMPANIES:
            more = {"type": kind, **extra, "company": company,
                    "count": most.get(company, 0) + 1}
            if kind == "forced_sell":
                more["player"] = state.debts[0][0]
            assert not accepted(state, more), more


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), board=st.sampled_from(["classic", "kbg2022"]),
       variants=st.sampled_from(VARIANT_SETS), players=st.integers(2, 5),
       cash=st.sampled_from([0, 2000, 7000, 20000]))
def test_every_offered_trade_is_accepted_and_one_more_is_not(
        seed: int, board: str, variants: list[str], players: int, cash: int) -> None:
    names = ["Ann", "Ben", "Cid", "Dan", "Eve"][:players]
    options = {"board": board, "variants": variants, "starting_cash": cash}
    for _, _, after in play(names, options, seed, limit=150, greed=0.8):
        if GAME.is_over(after):
            break
        check_offers(after)


def test_a_buy_is_offered_per_company_up_to_what_the_cash_pays_for() -> None:
    state = drawn(started(("Mari", "Ben")), "rr.bb.gg.y", at="A1")  # yellow $1000, others $2000
    state = holding(state, "Mari", cash=5000)
    def buys(state: SharkState) -> dict[str, list[int]]:
        return {x.choices["company"][0]: list(x.choices["count"])
                for x in GAME.legal(state) if x.type == "buy"}

    assert buys(state) == {"red": [1, 2], "blue": [1, 2], "green": [1, 2],
                           "yellow": [1, 2, 3, 4, 5]}
    check_offers(state)
    after = played(state, {"type": "buy", "company": "yellow", "count": 4})
    assert buys(after) == {"yellow": [1]}           # $1000 left, one share of the turn's 5
    check_offers(after)
    assert buys(played(after, {"type": "buy", "company": "yellow", "count": 1})) == {}
