"""Placement, chains, prices, bonuses and hostile takeovers: the rulebook's examples and
one test per rule and ruling (classic board: area 1 is A1:E4, 2 F1:J4, 3 A5:E8, 4 F5:J8,
5 A9:E12, 6 F9:J12)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.engine import IllegalAction
from companion.games.shark import GAME
from companion.games.shark.chains import prices
from companion.grid import Cell
from tests.games.shark.position import (
    build,
    drawn,
    holding,
    on_board,
    paid,
    place,
    play,
    roll,
    started,
)

# The rulebook's examples --------------------------------------------------------------


def test_sams_first_red_building_is_lone_pays_1000_and_moves_red_to_1000() -> None:
    state = build(started(), "C3", "red")
    assert state.prices["red"] == 1000
    assert paid(state, "bonus") == [("Ann", "bonus", 1000)]
    # every starting red share earns the $1000 rise as a dividend, Ann's too
    assert paid(state, "dividend") == [("Ann", "dividend", 1000), ("Ben", "dividend", 1000),
                                       ("Cid", "dividend", 1000)]
    assert state.cash == {"Ann": 2000, "Ben": 1000, "Cid": 1000}


def test_green_chain_of_three_grows_to_four_and_pays_a_4000_bonus() -> None:
    state = drawn(started(stocks=["blue", "green", "blue"]), "ggg", at="B2")
    assert state.prices["green"] == 3000
    state = build(state, "E2", "green")
    assert state.prices["green"] == 4000
    assert paid(state, "bonus") == [("Ann", "bonus", 4000)]
    assert paid(state, "dividend") == [("Ben", "dividend", 1000)]


def test_red_lone_and_chain_of_three_is_3000_then_joining_the_lone_one_is_5000() -> None:
    state = drawn(started(stocks=["blue"] * 3), "r", at="B2")
    state = drawn(state, "rrr", at="G2")
    assert state.prices["red"] == 3000
    state = build(state, "B3", "red")
    assert state.prices["red"] == 5000
    assert paid(state, "bonus") == [("Ann", "bonus", 5000)]


def test_red_takeover_removes_the_green_chain_and_green_drops_to_1000() -> None:
    state = drawn(started(stocks=["red", "green", "blue"]), "rr.gg", at="A6")
    state = drawn(state, "g", at="H10")              # a green building elsewhere remains
    state = holding(state, "Ben", cash=5000)
    assert state.prices == {"red": 2000, "blue": 0, "green": 2000, "yellow": 0}
    state = build(state, "C6", "red")
    assert on_board(state).get("D6") is None and on_board(state).get("E6") is None
    assert on_board(state)["H10"] == "green"
    assert state.prices["red"] == 3000 and state.prices["green"] == 1000
    assert state.removed["green"] == 2 and state.supply_buildings["green"] == 15
    assert paid(state) == [("Ann", "bonus", 3000), ("Ann", "dividend", 1000),
                           ("Ben", "loss", -1000)]
    assert state.cash == {"Ann": 4000, "Ben": 4000, "Cid": 0}


# Where a building may go ------------------------------------------------------------


def test_the_building_goes_on_an_empty_cell_of_the_rolled_area() -> None:
    state = play(started(), roll("red", "3"))
    with pytest.raises(IllegalAction, match=r"C3 is in area 1 and the area die shows 3"):
        GAME.apply(state, place("C3", "red"))
    taken = play(drawn(started(), "b", at="B6"), roll("red", "3"))
    with pytest.raises(IllegalAction, match="B6 already holds a blue building"):
        GAME.apply(taken, place("B6", "red"))


def test_the_company_die_decides_the_company() -> None:
    state = play(started(), roll("red", "1"))
    with pytest.raises(IllegalAction, match="the company die shows red: place a red"):
        GAME.apply(state, place("A1", "blue"))
    assert on_board(play(state, {"type": "place", "cell": "A1"})) == {"A1": "red"}


@pytest.mark.parametrize("face", ["black", "grey"])
def test_a_black_or_grey_face_lets_the_player_choose_any_company(face: str) -> None:
    state = play(started(), roll(face, "2"), place("G3", "yellow"))
    assert on_board(state) == {"G3": "yellow"}
    state = play(started(), roll(face, "2"))
    with pytest.raises(IllegalAction, match="only used with the"):
        GAME.apply(state, place("G3", face))


@pytest.mark.parametrize("variants", [[], ["joker"], ["neutral"], ["joker", "neutral"]])
@pytest.mark.parametrize("face", ["black", "grey"])
def test_a_black_or_grey_face_needs_the_building_named(face: str, variants: list[str]
                                                       ) -> None:
    # the die leaves the choice to the player: no building is placed by default
    state = play(started(variants=variants), roll(face, "2"))
    with pytest.raises(IllegalAction, match=f"the company die shows {face}: say which "
                                            r"building to place \(company\): red, blue"):
        GAME.apply(state, {"type": "place", "cell": "G3"})


def test_the_shark_face_means_any_cell_of_the_shark_area() -> None:
    state = play(started(board="kbg2022"), roll("blue", "S"))
    assert set(GAME.view(state)["pending"]["choices"]["blue"]) == {
        f"{c}{r}" for c in "EFGH" for r in (5, 6, 7, 8)}
    with pytest.raises(IllegalAction, match="D5 is in area 1 and the area die shows S: "
                                            "place in the shark area"):
        GAME.apply(state, place("D5", "blue"))
    assert on_board(play(state, place("H8", "blue"))) == {"H8": "blue"}


def test_no_building_next_to_another_company_diagonals_are_fine() -> None:
    state = drawn(started(), "b", at="C6")
    rolled = play(state, roll("red", "3"))
    with pytest.raises(IllegalAction, match=r"D6 is next to a blue building and red's chain "
                                            r"\(1\) is not larger than blue's \(1\)"):
        GAME.apply(rolled, place("D6", "red"))
    assert on_board(play(rolled, place("D7", "red"))) == {"C6": "blue", "D7": "red"}


def test_a_placement_is_skipped_when_no_cell_of_the_area_is_legal() -> None:
    # area 1 is full of blue lone buildings and gaps only next to them
    state = drawn(started(), "b.b.b", ".b.b.", "b.b.b", ".b.b.")
    state = play(state, roll("red", "1"))
    view = GAME.view(state)
    assert view["pending"]["type"] == "trade_after"
    assert "no legal cell for a red building in area 1" in view["turn"]["skipped"]
    assert GAME.current(state) == "Ann"
    assert play(state, {"type": "end_turn"}).player == "Ben"


def test_a_placement_is_skipped_when_the_supply_has_no_building_of_the_company() -> None:
    state = started()
    state = replace(state, supply_buildings={**state.supply_buildings, "red": 0})
    state = play(state, roll("red", "1"))
    assert state.step == "trade_after" and state.buildings == {}
    assert GAME.view(state)["turn"]["skipped"] == (
        "no red building is left in the supply: the placement is skipped")


# Prices and bonuses -------------------------------------------------------------------


def test_price_formula_counts_chained_buildings_floors_at_1000_and_caps_at_15000() -> None:
    board = started().board

    def red(*names: str) -> dict[Cell, str]:
        return {Cell.parse(n): "red" for n in names}

    assert prices({}, board)["red"] == 0
    assert prices(red("A1", "C1"), board)["red"] == 1000
    assert prices(red("A1", "A2", "C1"), board)["red"] == 2000
    seventeen = red(*(f"{c}{r}" for c in "ABCDEFGHIJ" for r in (1, 2)))
    assert prices(seventeen, board)["red"] == 15000


def test_a_placement_that_does_not_raise_the_price_earns_no_chain_bonus() -> None:
    row = "r" * 10
    state = drawn(started(stocks=["blue"] * 3), row, row[:6], at="A1")
    assert state.prices["red"] == 15000
    state = build(state, "G2", "red")
    assert state.prices["red"] == 15000 and paid(state) == []


def test_joining_two_lone_buildings_raises_the_price_by_two_levels() -> None:
    state = drawn(started(stocks=["blue"] * 3), "r.r", at="A1")
    state = build(state, "B1", "red")
    assert state.prices["red"] == 3000 and paid(state, "bonus") == [("Ann", "bonus", 3000)]


# Hostile takeover ---------------------------------------------------------------------


def test_takeover_needs_a_strictly_larger_chain() -> None:
    state = drawn(started(), "r.bb", at="A5")
    rolled = play(state, roll("red", "3"))
    with pytest.raises(IllegalAction, match=r"B5 is next to a blue building and red's chain "
                                            r"\(2\) is not larger than blue's \(2\)"):
        GAME.apply(rolled, place("B5", "red"))
    assert rolled.buildings == state.buildings


def test_takeover_compares_with_every_adjacent_group() -> None:
    # red would take the lone yellow below but not the blue chain of three to the right
    state = drawn(started(), "rr.bbb", "..y...", at="A5")
    with pytest.raises(IllegalAction, match=r"blue's \(3\)"):
        build(state, "C5", "red")


def test_takeover_removes_every_adjacent_group_and_a_last_building_drops_to_0() -> None:
    state = drawn(started(stocks=["red", "blue", "yellow"]), "rrr.b", "...y.", at="A5")
    state = holding(holding(state, "Ben", cash=3000), "Cid", cash=3000)
    assert state.prices["blue"] == 1000 and state.prices["yellow"] == 1000
    state = build(state, "D5", "red")
    assert on_board(state) == {"A5": "red", "B5": "red", "C5": "red", "D5": "red"}
    assert state.prices == {"red": 4000, "blue": 0, "green": 0, "yellow": 0}
    assert state.removed["blue"] == 1 and state.removed["yellow"] == 1
    # a lone building lost takes its price from $1000 to $0: holders still pay
    assert paid(state, "loss") == [("Ben", "loss", -1000), ("Cid", "loss", -1000)]


def test_removed_buildings_leave_the_game() -> None:
    state = drawn(started(), "rr.g", at="A5")
    state = build(state, "C5", "red")
    assert state.removed["green"] == 1
    assert state.supply_buildings["green"] == 17
    assert sum(1 for b in state.buildings.values() if b == "green") == 0


def test_the_merged_chain_counts_for_the_takeover() -> None:
    # C5 joins the red pair on its left and the red one below it: a chain of 4 beats 3
    state = drawn(started(), "rr.ggg", "..r...", at="A5")
    state = build(state, "C5", "red")
    assert state.prices["red"] == 4000 and "D5" not in on_board(state)
