"""Trading, dividends, losses, forced sales and bankruptcy (the market and the bank)."""

from __future__ import annotations

import pytest

from companion.engine import IllegalAction
from companion.games.shark import GAME, SharkState
from companion.games.shark.market import forced_price
from tests.games.shark.position import (
    build,
    drawn,
    forced,
    forced_sale_position,
    holding,
    paid,
    place,
    play,
    roll,
    started,
)

END = {"type": "end_turn"}


def buy(company: str, count: int) -> dict:
    return {"type": "buy", "company": company, "count": count}


def sell(company: str, count: int) -> dict:
    return {"type": "sell", "company": company, "count": count}


def market() -> SharkState:
    """Ann to play, every company on the board at a price of at least $1000."""
    state = drawn(started(("Mari", "Ben", "Cid")), "rr.bb.gg.y", at="A1")
    return holding(state, "Mari", cash=30000, blue=2)


# Trading ------------------------------------------------------------------------------


def test_maris_buys_two_before_three_after_and_sells_two_blue() -> None:
    state = play(market(), buy("red", 2), roll("red", "6"), {"type": "place", "cell": "J12"})
    assert state.step == "trade_after"
    red = state.prices["red"]
    state = play(state, buy("green", 2), buy("yellow", 1))
    assert state.shares["Mari"] == {"red": 3, "blue": 2, "green": 2, "yellow": 1}
    with pytest.raises(IllegalAction, match="a player may buy 5 shares a turn and Mari "
                                            "bought 5 already: buy at most 0 more"):
        GAME.apply(state, buy("blue", 1))
    before = state.cash["Mari"]
    state = play(state, sell("blue", 2))
    assert state.cash["Mari"] == before + 2 * 2000 and state.shares["Mari"]["blue"] == 0
    # the lone red at J12 earned $1000
    assert state.cash["Mari"] == 30000 - 2 * red + 1000 - 2 * 2000 - 1000 + 2 * 2000


def test_the_buy_limit_counts_both_windows_and_resets_next_turn() -> None:
    state = play(market(), buy("red", 4), roll("red", "6"), {"type": "place", "cell": "J12"})
    with pytest.raises(IllegalAction, match="buy at most 1 more"):
        GAME.apply(state, buy("green", 2))
    state = play(holding(state, "Ben", cash=10000), END, buy("red", 5))
    assert state.player == "Ben" and state.bought == 5


def test_selling_is_unlimited_and_may_sell_shares_bought_this_turn() -> None:
    state = play(market(), buy("red", 5), sell("red", 6), sell("blue", 2))
    assert state.shares["Mari"]["red"] == 0 and state.bought == 5
    assert state.cash["Mari"] == 30000 - 5 * 2000 + 6 * 2000 + 2 * 2000


def test_no_trading_below_1000() -> None:
    state = holding(started(("Mari", "Ben")), "Mari", cash=5000)
    with pytest.raises(IllegalAction, match=r"red is at \$0: shares of a company below \$1000 "
                                            "cannot be bought or sold"):
        GAME.apply(state, buy("red", 1))
    with pytest.raises(IllegalAction, match=r"red is at \$0"):
        GAME.apply(state, sell("red", 1))


def test_cash_never_goes_negative() -> None:
    state = holding(market(), "Mari", cash=3000)
    with pytest.raises(IllegalAction, match=r"2 green shares at \$2,000 cost \$4,000 and Mari "
                                            r"has \$3,000"):
        GAME.apply(state, buy("green", 2))


def test_selling_more_than_held_or_buying_more_than_the_bank_has() -> None:
    state = market()
    with pytest.raises(IllegalAction, match="Mari holds 2 blue shares, not 3"):
        GAME.apply(state, sell("blue", 3))
    state = holding(state, "Ben", green=48)
    with pytest.raises(IllegalAction, match="the bank has 2 green shares left, not 3"):
        GAME.apply(state, buy("green", 3))


def test_trading_is_for_the_player_whose_turn_it_is_in_a_trade_window() -> None:
    state = play(market(), roll("red", "6"))
    with pytest.raises(IllegalAction, match="not now: Mari places a building"):
        GAME.apply(state, buy("red", 1))


# Dividends and losses -----------------------------------------------------------------


def test_every_shareholder_earns_the_rise_times_their_shares() -> None:
    state = holding(drawn(started(stocks=["blue"] * 3), "yy", at="A1"), "Cid", yellow=3)
    state = holding(state, "Ann", yellow=1)
    state = build(state, "C1", "yellow")
    assert paid(state, "dividend") == [("Ann", "dividend", 1000), ("Cid", "dividend", 3000)]


def test_the_current_player_pays_no_loss() -> None:
    state = drawn(started(stocks=["green"] * 3), "rr.g", at="A5")
    state = holding(holding(state, "Ben", cash=5000), "Cid", cash=5000)
    state = build(state, "C5", "red")
    assert state.prices["green"] == 0
    assert paid(state, "loss") == [("Ben", "loss", -1000), ("Cid", "loss", -1000)]
    assert state.cash["Ann"] == 3000     # the red bonus only: Ann pays nothing


def test_dividends_are_paid_before_losses_are_settled() -> None:
    # Ben has no cash; red's rise pays him 3000 before green's fall costs him 2000
    state = drawn(started(stocks=["red", "red", "red"]), "rr.gg", at="A5")
    state = holding(holding(state, "Ben", green=1, red=3), "Cid", cash=9000)
    state = build(state, "C5", "red")
    assert state.step == "trade_after" and not state.bankrupt
    assert state.cash["Ben"] == 1000
    kinds = [p.kind for p in state.payments]
    assert kinds.index("loss") > max(i for i, k in enumerate(kinds) if k == "dividend")


def test_losses_are_settled_in_seat_order_after_the_current_player() -> None:
    state = started(("Ann", "Ben", "Cid", "Dan"), stocks=["green"] * 4)
    state = play(state, roll("red", "1"), place("A1", "red"), END,
                 roll("blue", "6"), place("J12", "blue"), END)
    state = drawn(state, "rr.g", at="A5")
    for p in ("Ann", "Ben", "Dan"):
        state = holding(state, p, cash=9000)
    assert state.player == "Cid"
    state = build(state, "C5", "red")
    assert [p.player for p in state.payments if p.kind == "loss"] == ["Dan", "Ann", "Ben"]


def test_a_loss_names_the_companies_the_prices_and_the_shares() -> None:
    # red at B5 takes over the green building at A5 and the blue one at B6
    state = drawn(started(stocks=["green"] * 3), "g.rr", ".b..", at="A5")
    state = holding(holding(state, "Ben", cash=5000), "Cid", cash=5000, green=2, blue=3)
    state = build(state, "B5", "red")
    assert [(p.player, p.amount, p.note) for p in state.payments if p.kind == "loss"] == [
        ("Ben", -1000, "loss, as green's price fell from $1,000 to $0: 1 share \u00d7 $1,000"),
        ("Cid", -5000, "loss, as blue's price fell from $1,000 to $0: 3 shares \u00d7 $1,000; "
                       "green's price fell from $1,000 to $0: 2 shares \u00d7 $1,000")]


# Forced sale and bankruptcy -----------------------------------------------------------


@pytest.mark.parametrize(("price", "forced"), [(6000, 3000), (3000, 1000), (1000, 0),
                                               (15000, 7000), (2000, 1000), (0, 0)])
def test_forced_sale_price_is_half_rounded_down_to_1000(price: int, forced: int) -> None:
    assert forced_price(price) == forced


def test_forced_sale_is_a_pending_decision_of_the_debtor() -> None:
    state = forced_sale_position()
    assert state.prices["red"] == 5000 and state.prices["green"] == 0
    view = GAME.view(state)
    assert view["pending"]["type"] == "forced_sale"
    assert view["pending"]["player"] == "Ben" and view["pending"]["owed"] == 6000
    assert view["pending"]["short"] == 3000
    assert view["pending"]["for"] == "green's price fell from $3,000 to $0: 2 shares \u00d7 $3,000"
    assert view["pending"]["forced_prices"]["red"] == 2000
    assert GAME.current(state) == "Ben" and state.cash["Ben"] == 3000
    # Cid's loss waits behind Ben's in seat order (Cid had a $1000 red dividend)
    assert state.debts == (
        ("Ben", 6000, "green's price fell from $3,000 to $0: 2 shares \u00d7 $3,000"),
        ("Cid", 3000, "green's price fell from $3,000 to $0: 1 share \u00d7 $3,000"))
    assert state.cash["Cid"] == 10000


def test_forced_sale_sells_until_the_loss_is_covered_and_no_more() -> None:
    state = forced_sale_position()
    with pytest.raises(IllegalAction, match=r"Ben is \$3,000 short and 2 red shares at \$2,000 "
                                            "cover it: sell at most 2"):
        GAME.apply(state, forced("Ben", "red", 3))
    with pytest.raises(IllegalAction, match="Ben owes"):
        GAME.apply(state, forced("Ann", "red", 1))
    with pytest.raises(IllegalAction, match=r"green shares sell for \$0"):
        GAME.apply(state, forced("Ben", "green", 1))
    state = play(state, forced("Ben", "red", 1))
    assert state.step == "forced_sale" and state.cash["Ben"] == 5000
    state = play(state, forced("Ben", "red", 1))
    assert state.step == "trade_after" and GAME.current(state) == "Ann"
    assert state.cash["Ben"] == 1000 and state.shares["Ben"]["red"] == 1
    assert paid(state) == [("Ben", "sale", 2000), ("Ben", "loss", -6000),
                           ("Cid", "loss", -3000)]
    assert state.cash["Cid"] == 7000


def test_a_player_who_cannot_cover_a_loss_is_bankrupt_and_skipped() -> None:
    state = drawn(started(stocks=["red", "green", "red"]), "rr.gg", at="A6")
    state = holding(state, "Cid", cash=2000)
    state = build(state, "C6", "red")
    assert state.bankrupt == ("Ben",)
    assert state.cash["Ben"] == 0 and state.shares["Ben"]["green"] == 0
    assert state.supply_shares["green"] == 50
    assert GAME.scores(state)["Ben"] == 0
    state = play(state, END)
    assert state.player == "Cid"
    state = play(state, roll("blue", "6"), {"type": "place", "cell": "J12"}, END)
    assert state.player == "Ann"


def test_a_bankrupt_player_gives_shares_to_the_supply_and_cash_to_the_bank() -> None:
    # RULINGS.md: when cash plus the forced value of every share cannot cover what one
    # placement makes them owe, the banker declares the bankruptcy at once: the shares
    # go back to the supply (not sold), the cash to the bank, no forced_sell is asked
    state = drawn(started(stocks=["red", "green", "red"]), "rrrr.ggg", at="A6")
    state = holding(state, "Ben", cash=1000, green=3, red=1)
    state = holding(state, "Cid", cash=9000)
    supply = dict(state.supply_shares)
    state = build(state, "E6", "red")
    # dividend 1000, then 9000 owed: 2000 cash + red at the forced $2000 cannot cover it
    assert paid(state) == [("Ann", "bonus", 5000), ("Ann", "dividend", 1000),
                           ("Ben", "dividend", 1000), ("Cid", "dividend", 1000),
                           ("Ben", "loss", -2000)]
    assert "sale" not in state.totals
    assert state.bankrupt == ("Ben",) and state.cash["Ben"] == 0
    assert state.shares["Ben"] == {"red": 0, "blue": 0, "green": 0, "yellow": 0}
    assert state.supply_shares["green"] == supply["green"] + 3
    assert state.supply_shares["red"] == supply["red"] + 1
    assert state.step == "trade_after" and GAME.current(state) == "Ann"


def test_losses_after_a_forced_sale_go_on_in_seat_order_through_a_bankruptcy() -> None:
    # Ann's red takes over green (3000 -> 0): Ben sells, then Cid goes bankrupt, then Dan
    state = drawn(started(("Ann", "Ben", "Cid", "Dan"), stocks=["red"] + ["green"] * 3),
                  "rrrr.ggg", at="A6")
    state = holding(state, "Ben", cash=0, green=2, red=3)
    state = holding(holding(state, "Cid", cash=1000, green=2), "Dan", cash=9000, green=1)
    state = build(state, "E6", "red")
    assert GAME.current(state) == "Ben" and [d[:2] for d in state.debts] == [
        ("Ben", 6000), ("Cid", 6000), ("Dan", 3000)]
    state = play(state, forced("Ben", "red", 2))
    assert paid(state) == [("Ben", "sale", 4000), ("Ben", "loss", -6000),
                           ("Cid", "loss", -1000), ("Dan", "loss", -3000)]
    assert state.bankrupt == ("Cid",) and state.step == "trade_after"
    assert state.cash == {"Ann": 6000, "Ben": 1000, "Cid": 0, "Dan": 6000}
    assert play(state, END).player == "Ben"


def test_the_game_ends_when_one_player_is_left() -> None:
    state = drawn(started(("Ann", "Ben"), stocks=["red", "green"]), "rr.gg", at="A6")
    state = build(state, "C6", "red")
    assert GAME.is_over(state)
    assert GAME.outcome(state).winners == ("Ann",)
    assert "Ann is the only player left" in GAME.outcome(state).reason
    assert GAME.current(state) is None
