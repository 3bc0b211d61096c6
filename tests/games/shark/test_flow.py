"""Boards, setup, the turn's state machine, digital dice and the end of the game."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion import record
from companion.engine import BadSetup, Ending, IllegalAction, Malformed, Termination
from companion.games.shark import GAME
from companion.games.shark.board import load
from companion.grid import Cell
from companion.store import Store
from companion.table import Table
from tests.games.shark.position import (
    build,
    drawn,
    holding,
    on_board,
    place,
    play,
    roll,
    started,
)

END = {"type": "end_turn"}

# Boards -------------------------------------------------------------------------------


def test_classic_board_is_six_zones_of_five_by_four() -> None:
    board = load("classic")
    assert len(board.areas) == 120 and board.area_die == ("1", "2", "3", "4", "5", "6")
    assert [board.areas[Cell.parse(c)] for c in ("A1", "E4", "F1", "J4", "A5", "F8", "E9",
                                                 "J12")] == \
        ["1", "1", "2", "2", "3", "4", "5", "6"]
    assert all(len(board.cells_of(a)) == 20 for a in "123456")
    assert board.neighbours[Cell(0, 0)] == (Cell(1, 0), Cell(0, 1))   # B1, A2


def test_kbg2022_board_has_four_quarters_around_a_shark_area() -> None:
    board = load("kbg2022")
    assert len(board.areas) == 144 and board.area_die == ("1", "2", "3", "4", "S", "S")
    assert len(board.cells_of("S")) == 16 and board.areas[Cell.parse("E5")] == "S"
    assert board.areas[Cell.parse("H8")] == "S"
    assert all(len(board.cells_of(a)) == 32 for a in "1234")
    assert [board.areas[Cell.parse(c)] for c in ("A1", "L1", "A12", "L12")] == [
        "1", "2", "3", "4"]


def test_an_inline_board_is_played_like_a_shipped_one() -> None:
    board = {"rows": ["11.S", "2222"], "area_die": ["1", "2", "S"]}
    state = play(started(board=board), roll("red", "S"), place("D1", "red"))
    assert on_board(state) == {"D1": "red"}
    assert GAME.view(state)["layout"] == ["11.S", "2222"]
    rolled = play(state, END, roll("red", "1"))
    assert on_board(play(rolled, place("a1 ", "red")))["A1"] == "red"   # case, spaces
    for name, says in (("C1", r"C1 is not a cell of the custom board: a gap \("),
                       ("E1", r"E1 is not a cell of the custom board \(columns A to D, rows "
                              r"1 to 2\)"),
                       ("1A", "a cell is named like \"C4\""),
                       (41, "a cell is named like \"C4\", not 41")):
        with pytest.raises(Malformed, match=says):
            GAME.apply(rolled, {"type": "place", "cell": name, "company": "red"})
    assert GAME.view(rolled)["board"] == {"D1": "red"}


@pytest.mark.parametrize(("board", "message"), [
    ({"rows": ["111", "11"], "area_die": ["1"]}, "board row 2 has 2 cells and row 1 has 3"),
    ({"rows": ["11x"], "area_die": ["1"]}, "board row 1 has 'x'"),
    ({"rows": ["112"], "area_die": ["1", "3"]}, "a face '3' but the board has no cell of "
                                                "area 3"),
    ({"rows": ["112"], "area_die": ["1", "S"]}, "no shark-area cell"),
    ({"rows": ["112"], "area_die": []}, "area_die"),
    ({"rows": [], "area_die": ["1"]}, "a list of row strings"),
    ({"rows": ["1"], "area_die": ["1"], "die": 3}, "not 'die'"),
    ("monopoly", "unknown board 'monopoly'"),
])
def test_bad_boards_are_refused_with_what_to_fix(board: object, message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        GAME.new(["Ann", "Ben"], {"board": board})


@pytest.mark.parametrize(("options", "message"), [
    ({"variants": ["joker", "joker"]}, "named twice"),
    ({"variants": ["turbo"]}, "unknown variant 'turbo'"),
    ({"variants": "joker"}, "is a list"),
    ({"starting_cash": 500}, "starting_cash"),
    ({"starting_cash": -1000}, "starting_cash"),
    ({"start": 1}, "unknown option 'start'"),
])
def test_bad_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        GAME.new(["Ann", "Ben"], options)


# Setup --------------------------------------------------------------------------------


def test_each_player_chooses_one_free_share_in_seat_order_then_the_banker_starts() -> None:
    state = GAME.new(["Ann", "Ben", "Cid"], {"starting_cash": 3000})
    assert GAME.view(state)["pending"]["type"] == "choose_stock"
    with pytest.raises(IllegalAction, match="not now: Ann chooses a starting share"):
        GAME.apply(state, roll("red", "1"))
    for who, company in (("Ann", "red"), ("Ben", "red"), ("Cid", "blue")):
        assert GAME.current(state) == who
        state = play(state, {"type": "choose_stock", "company": company})
    assert state.shares["Ben"]["red"] == 1 and state.supply_shares["red"] == 48
    assert state.cash == {"Ann": 3000, "Ben": 3000, "Cid": 3000}
    assert GAME.current(state) == "Ann" and state.step == "trade_before"


def test_starting_cash_defaults_to_0() -> None:
    assert set(started().cash.values()) == {0}


# The turn -----------------------------------------------------------------------------


def test_a_turn_is_trade_roll_place_trade_end() -> None:
    state = started(starting_cash=5000)
    assert [x.type for x in GAME.legal(state)] == ["roll"]     # nothing to trade yet
    state = play(state, roll("red", "1"))
    assert GAME.view(state)["pending"]["type"] == "place"
    with pytest.raises(IllegalAction, match="not now"):
        GAME.apply(state, END)
    state = play(state, place("A1", "red"))
    assert [x.type for x in GAME.legal(state)] == ["buy", "sell", "end_turn"]
    with pytest.raises(IllegalAction, match="not now"):
        GAME.apply(state, roll("red", "1"))
    state = play(state, END)
    assert GAME.current(state) == "Ben" and state.step == "trade_before"


def test_pending_says_what_the_engine_waits_for() -> None:
    state = play(started(), roll("green", "4"))
    pending = GAME.view(state)["pending"]
    assert pending["player"] == "Ann" and pending["roll"] == {"company": "green", "area": "4"}
    assert set(pending["choices"]) == {"green"} and len(pending["choices"]["green"]) == 20
    assert "Ann places a building" in pending["says"]


def test_pending_lists_only_the_actions_possible_now() -> None:
    # no neutral variant: nothing to remove; no price of $1000 yet: nothing to trade
    state = started(starting_cash=5000)
    assert GAME.view(state)["pending"]["actions"] == ["roll"]
    state = play(state, roll("black", "1"))
    assert GAME.view(state)["pending"]["actions"] == ["place"]
    state = play(state, place("A1", "red"))
    assert GAME.view(state)["pending"]["actions"] == ["buy", "sell", "end_turn"]
    state = drawn(started(variants=["neutral"]), "n", at="J12")
    assert GAME.view(play(state, roll("grey", "1")))["pending"]["actions"] == [
        "place", "remove_neutral"]


def test_dice_faces_are_checked() -> None:
    state = started()
    with pytest.raises(IllegalAction, match="company die shows one of red, blue"):
        GAME.apply(state, roll("purple", "1"))
    with pytest.raises(IllegalAction, match="area die shows one of 1, 2, 3, 4, 5, 6, not 'S'"):
        GAME.apply(state, roll("red", "S"))
    assert play(state, {"type": "roll", "company": "red", "area": 2}).roll == ("red", "2")


def test_a_record_roll_needs_its_faces() -> None:
    with pytest.raises(IllegalAction, match="the roll has no dice"):
        GAME.apply(started(), {"type": "roll"})


def test_the_companion_rolls_digital_dice_and_logs_the_faces(tmp_path: Path) -> None:
    table = Table(Store(tmp_path / "c.db"))
    session = table.create("shark", ["Ann", "Ben"], {"board": "kbg2022"}, seed=11)
    for company in ("red", "blue"):
        table.play(session.id, {"type": "choose_stock", "company": company})
    session = table.play(session.id, {"type": "roll"})
    logged = session.actions[-1]
    assert logged["company"] in ("red", "blue", "green", "yellow", "black", "grey")
    assert logged["area"] in ("1", "2", "3", "4", "S")
    expected = random.Random(f"11/{2}")
    assert (logged["company"], logged["area"]) == (
        expected.choice(("red", "blue", "green", "yellow", "black", "grey")),
        expected.choice(("1", "2", "3", "4", "S", "S")))
    out, code = record.replay(record.parse(session.record()))
    assert code == 0 and out == GAME.summary(session.state)


def test_illegal_actions_change_nothing_and_say_why() -> None:
    state = started()
    refused: list[tuple[dict[str, Any], str]] = [
        ({"type": "fly"}, "unknown action 'fly'"),
        ({"type": "end_turn", "now": 1}, "end_turn does not take 'now'"),
        ({"type": "buy", "company": "red", "count": 0}, "a count of shares"),
        ({"type": "buy", "company": "pink", "count": 1}, "needs a company"),
    ]
    for action, message in refused:
        with pytest.raises(IllegalAction, match=message):
            GAME.apply(state, action)
    rolled = play(state, roll("red", "1"))
    with pytest.raises(IllegalAction, match='a cell is named like "C4"'):
        GAME.apply(rolled, place("11", "red"))
    assert GAME.view(rolled) == GAME.view(play(started(), roll("red", "1")))


# The end ------------------------------------------------------------------------------


def test_the_game_ends_at_the_end_of_the_turn_a_price_reaches_15000() -> None:
    state = drawn(started(), "rrrrrrrrrr", "rrrr", at="A1")
    state = build(state, "E2", "red")
    assert state.prices["red"] == 15000 and not GAME.is_over(state)
    assert GAME.view(state)["ending"] == "red reached $15,000"
    state = play(state, {"type": "sell", "company": "red", "count": 1})
    assert not GAME.is_over(state)
    state = play(state, END)
    assert GAME.outcome(state).reason == "red reached $15,000"
    assert GAME.current(state) is None and GAME.legal(state) == []
    with pytest.raises(IllegalAction, match="the game is over"):
        GAME.apply(state, END)


def test_the_game_ends_when_a_company_building_supply_runs_out() -> None:
    state = started()
    state = replace(state, supply_buildings={**state.supply_buildings, "blue": 1})
    state = build(state, "J12", "blue")
    assert state.ending == Ending(Termination.SUPPLY, "no blue building is left in the supply")
    assert GAME.is_over(play(state, END))


def test_the_game_ends_when_a_company_share_supply_runs_out() -> None:
    state = holding(drawn(started(), "gg"), "Ann", cash=10000)
    state = holding(state, "Ben", green=48)
    state = play(state, {"type": "buy", "company": "green", "count": 2})
    assert state.ending == Ending(Termination.SUPPLY, "every green share has been bought")
    # selling one back does not undo it: the condition was met during the turn
    state = play(state, {"type": "sell", "company": "green", "count": 1},
                 roll("red", "6"), place("J12", "red"), END)
    assert GAME.is_over(state)


def test_final_wealth_is_cash_plus_shares_and_ties_share_the_win() -> None:
    state = drawn(started(), "gg")
    state = holding(holding(state, "Ann", cash=1000, green=2), "Ben", cash=3000, red=0)
    state = holding(state, "Cid", cash=5000, red=0)
    state = replace(state, ending=Ending(Termination.TOP_PRICE, "test"))
    state = play(state, roll("red", "6"), place("J12", "red"), END)
    # Ann: $1000 + $1000 lone bonus + $1000 dividend on her red share, which is now worth
    # $1000, and 2 green at $2000
    assert GAME.scores(state) == {"Ann": 3000 + 1000 + 4000, "Ben": 3000, "Cid": 5000}
    assert GAME.outcome(state).winners == ("Ann",)
    tied = holding(state, "Cid", cash=8000)
    assert GAME.outcome(tied).winners == ("Ann", "Cid")


def test_a_bankrupt_player_never_wins() -> None:
    state = drawn(started(stocks=["red", "green", "red"]), "rr.gg", at="A6")
    state = build(state, "C6", "red")
    assert state.bankrupt == ("Ben",)
    state = replace(state, ending=Ending(Termination.TOP_PRICE, "test"))
    state = holding(holding(state, "Ann", cash=0, red=0), "Cid", cash=0, red=0)
    state = play(state, END)
    assert GAME.outcome(state).winners == ("Ann", "Cid")
