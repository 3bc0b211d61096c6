"""The joker (black), neutral (grey) and pioneer variants and their combinations."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.engine import IllegalAction
from companion.games.shark import GAME, SharkState
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

END = {"type": "end_turn"}


def pending(state: SharkState) -> dict:
    return GAME.view(state)["pending"]


# Joker ------------------------------------------------------------------------------


@pytest.mark.parametrize("face", ["black", "grey"])
def test_joker_black_or_grey_face_allows_any_building_black_included(face: str) -> None:
    state = play(started(variants=["joker"]), roll(face, "1"))
    assert set(pending(state)["choices"]) == {"red", "blue", "green", "yellow", "black"}


def test_joker_without_black_buildings_left_allows_any_company() -> None:
    state = started(variants=["joker"])
    state = replace(state, supply_buildings={**state.supply_buildings, "black": 0})
    state = play(state, roll("black", "1"))
    assert set(pending(state)["choices"]) == {"red", "blue", "green", "yellow"}
    with pytest.raises(IllegalAction, match="no black building is left in the supply: "
                                            "choose red, blue"):
        GAME.apply(state, place("A1", "black"))


def test_black_is_placed_lone_only_and_earns_the_highest_price() -> None:
    state = drawn(started(variants=["joker"]), "rrr", "...", "b..", at="A1")
    rolled = play(state, roll("black", "1"))
    with pytest.raises(IllegalAction, match="a black building may only be placed as a lone "
                                            "building: D1 is next to the red building at C1"):
        GAME.apply(rolled, place("D1", "black"))
    state = play(rolled, place("E1", "black"))
    assert paid(state) == [("Ann", "bonus", 3000)]
    assert state.prices["red"] == 3000 and state.supply_buildings["black"] == 4


def test_black_joins_the_chain_of_the_building_placed_next_to_it() -> None:
    state = drawn(started(stocks=["blue"] * 3, variants=["joker"]), "rr.k", at="A5")
    assert state.prices["red"] == 2000
    state = build(state, "C5", "red")
    assert state.prices["red"] == 4000                  # +2000: the black counts too
    assert paid(state, "bonus") == [("Ann", "bonus", 4000)]


def test_a_black_building_counts_in_takeover_sizes() -> None:
    # red + black (2) against a green pair: not larger
    state = drawn(started(variants=["joker"]), "k.gg", at="A5")
    with pytest.raises(IllegalAction, match=r"red's chain \(2\) is not larger than green's "
                                            r"\(2\)"):
        build(state, "B5", "red")
    state = drawn(started(variants=["joker"]), "kr.gg", at="A5")
    assert "D5" not in on_board(build(state, "C5", "red"))


def test_black_is_never_removed_but_its_chain_loses_it_and_it_joins_the_taker() -> None:
    state = drawn(started(stocks=["red", "green", "blue"], variants=["joker"]),
                  "gk.rr", at="A6")
    state = drawn(state, "g", at="H10")
    state = holding(state, "Ben", cash=5000)
    assert state.prices["green"] == 2000 and state.prices["red"] == 2000
    state = build(state, "C6", "red")
    assert on_board(state)["B6"] == "black" and "A6" not in on_board(state)
    assert state.removed["green"] == 1
    assert state.prices["green"] == 1000                # the pair dropped by 2, floor 1000
    assert state.prices["red"] == 4000                  # the black now joins red's chain
    assert paid(state, "bonus") == [("Ann", "bonus", 3000)]     # paid before the removal
    assert paid(state, "loss") == [("Ben", "loss", -1000)]


# Neutral ----------------------------------------------------------------------------


@pytest.mark.parametrize("face", ["black", "grey"])
def test_neutral_black_or_grey_face_allows_grey_or_its_removal(face: str) -> None:
    state = drawn(started(variants=["neutral"]), "n", at="J12")
    state = play(state, roll(face, "1"))
    assert set(pending(state)["choices"]) == {"red", "blue", "green", "yellow", "grey",
                                              "remove_neutral"}
    assert pending(state)["choices"]["remove_neutral"] == ["J12"]
    state = play(state, {"type": "remove_neutral", "cell": "J12"})
    assert on_board(state) == {} and state.removed["grey"] == 1
    assert state.supply_buildings["grey"] == 4 and state.step == "trade_after"


def test_grey_goes_next_to_anything_and_earns_nothing() -> None:
    state = drawn(started(variants=["neutral"]), "r.b", at="A1")
    state = play(state, roll("grey", "1"), place("B1", "grey"))
    assert on_board(state)["B1"] == "grey" and paid(state) == []
    assert state.prices == {"red": 1000, "blue": 1000, "green": 0, "yellow": 0}


def test_grey_blocks_chains_and_a_building_next_to_grey_only_is_lone() -> None:
    state = drawn(started(stocks=["blue"] * 3, variants=["neutral"]), "rnn", at="A1")
    state = build(state, "D1", "red")
    assert state.prices["red"] == 1000
    assert paid(state, "bonus") == [("Ann", "bonus", 1000)]
    state = play(state, END)
    state = build(drawn(state, "n", at="A3"), "A4", "blue")     # blue next to grey: fine
    assert on_board(state)["A4"] == "blue"


def test_remove_neutral_needs_the_right_face_and_a_grey_building() -> None:
    state = drawn(started(variants=["neutral"]), "n.r", at="A1")
    with pytest.raises(IllegalAction, match="a grey building may be removed only"):
        GAME.apply(play(state, roll("red", "1")), {"type": "remove_neutral", "cell": "A1"})
    with pytest.raises(IllegalAction, match="there is no grey building at C1"):
        GAME.apply(play(state, roll("grey", "1")), {"type": "remove_neutral", "cell": "C1"})


def test_joker_and_neutral_split_the_two_faces() -> None:
    state = drawn(started(variants=["joker", "neutral"]), "n", at="J12")
    black = pending(play(state, roll("black", "1")))["choices"]
    grey = pending(play(state, roll("grey", "1")))["choices"]
    assert set(black) == {"red", "blue", "green", "yellow", "black"}
    assert set(grey) == {"red", "blue", "green", "yellow", "grey", "remove_neutral"}
    with pytest.raises(IllegalAction, match="the company die shows black: choose"):
        GAME.apply(play(state, roll("black", "1")), place("A1", "grey"))
    with pytest.raises(IllegalAction, match="a grey building may be removed only on a grey"):
        GAME.apply(play(state, roll("black", "1")), {"type": "remove_neutral", "cell": "J12"})


# Pioneer ----------------------------------------------------------------------------


def test_a_pioneer_earns_1000_and_rolls_again_once_a_turn() -> None:
    state = drawn(started(stocks=["blue"] * 3, variants=["pioneer"]), "r", at="A1")
    state = build(state, "A9", "red")                  # first red in area 5
    assert paid(state) == [("Ann", "bonus", 1000)]
    assert pending(state)["type"] == "pioneer_roll"
    with pytest.raises(IllegalAction, match="not now: Ann pioneered and rolls again"):
        GAME.apply(state, {"type": "buy", "company": "red", "count": 1})
    state = build(state, "F9", "red")                  # first in area 6: no third roll
    assert state.step == "trade_after" and state.pioneered
    state = play(state, END)
    assert not state.pioneered


def test_a_second_building_in_the_area_is_no_pioneer() -> None:
    state = drawn(started(variants=["pioneer"]), "r", at="A1")
    state = build(state, "C3", "red")
    assert state.step == "trade_after"


def test_a_pioneer_joining_a_chain_gets_the_chain_bonus_not_both() -> None:
    state = drawn(started(stocks=["blue"] * 3, variants=["pioneer"]), "r", at="F5")
    state = build(state, "E5", "red")                   # area 3, next to red in area 4
    assert paid(state, "bonus") == [("Ann", "bonus", 2000)]
    assert state.step == "pioneer_roll"


def test_special_buildings_never_pioneer() -> None:
    state = play(started(variants=["pioneer", "joker", "neutral"]), roll("black", "1"),
                 place("A1", "black"))
    assert state.step == "trade_after"
    state = play(started(variants=["pioneer", "neutral"]), roll("grey", "1"),
                 place("A1", "grey"))
    assert state.step == "trade_after"


def test_the_pioneer_roll_may_find_no_legal_cell() -> None:
    state = drawn(started(variants=["pioneer"]), "b.b.b", ".b.b.", "b.b.b", ".b.b.")
    state = build(state, "A9", "red")
    state = play(state, roll("red", "1"))
    assert state.step == "trade_after" and "skipped" in GAME.view(state)["turn"]["skipped"]
