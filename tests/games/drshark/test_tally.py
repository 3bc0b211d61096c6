"""Tally mode: tables that only use the timer count their dossiers at the end."""

from __future__ import annotations

import pytest

from companion.engine import IllegalAction
from companion.games.drshark import GAME
from tests.games.drshark.helpers import FOUR, PAIR, play


def tally(**dossiers: dict) -> dict:
    return {"type": "tally", "dossiers": dossiers}


def test_tally_records_the_final_dossiers_and_ends_the_game() -> None:
    state = play(GAME.new(PAIR, {}), tally(
        Ann={"evidence": {"passport": 1, "moustache": 1, "watch": 2}, "clues": 8},
        Ben={"evidence": {"umbrella-gun": 1}, "clues": 2}))
    assert GAME.is_over(state)
    assert GAME.scores(state) == {"Ann": 42, "Ben": 9}
    assert GAME.outcome(state).winners == ("Ann",)
    view = GAME.view(state)["dossiers"]["Ann"]
    assert view["evidence"] == ["passport", "moustache", "watch", "watch"]
    assert view["clue_count"] == 8 and view["clues"] == [] and view["points"] == 42


def test_tally_in_team_play_is_by_team_or_member() -> None:
    state = GAME.new(FOUR, {"teams": True})
    by_team = play(state, {"type": "tally", "dossiers": {
        "Ann+Cid": {"evidence": {"wig": 1}, "clues": 1}, "Ben+Dan": {"clues": 9}}})
    by_member = play(state, tally(Cid={"evidence": {"wig": 1}, "clues": 1},
                                  Ben={"clues": 9}))
    assert GAME.scores(by_team) == GAME.scores(by_member) == {"Ann+Cid": 9, "Ben+Dan": 9}
    assert GAME.outcome(by_team).winners == ("Ann+Cid", "Ben+Dan")


def test_tally_may_come_in_the_middle_of_a_tracked_game() -> None:
    state = play(GAME.new(PAIR, {}), {"type": "move", "space": "E-light"},
                 {"type": "start_search"}, {"type": "take", "clue": "wig-1a"})
    state = play(state, tally(Ann={"clues": 1}, Ben={}))
    assert GAME.is_over(state) and GAME.scores(state) == {"Ann": 1, "Ben": 0}


@pytest.mark.parametrize("dossiers,message", [
    ({"Ann": {"clues": 1}}, "Ben is missing"),
    ({"Ann": {}, "Ben": {}, "Zed": {}}, "'Zed' has no dossier"),
    ({"Ann": {"evidence": {"rocket": 1}}, "Ben": {}}, "no evidence 'rocket'"),
    ({"Ann": {"evidence": {"watch": -1}}, "Ben": {}}, "whole number"),
    ({"Ann": {"clues": "many"}, "Ben": {}}, "number of unassigned clues"),
    ({"Ann": {"points": 3}, "Ben": {}}, "tally is"),
    ({"Ann": {"evidence": {"watch": 2}}, "Ben": {"evidence": {"watch": 2}}},
     "4 watch evidence but the game has only 3"),
    ({"Ann": {"clues": 97}, "Ben": {"evidence": {"wig": 1}}}, "100 clues.*only 99"),
])
def test_a_bad_tally_is_refused(dossiers: dict, message: str) -> None:
    with pytest.raises(IllegalAction, match=message):
        GAME.apply(GAME.new(PAIR, {}), {"type": "tally", "dossiers": dossiers})


def test_a_team_counted_twice_is_refused() -> None:
    with pytest.raises(IllegalAction, match="counted twice"):
        GAME.apply(GAME.new(FOUR, {"teams": True}),
                   tally(Ann={}, Cid={}, Ben={}))
