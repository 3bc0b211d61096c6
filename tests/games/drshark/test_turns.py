"""Setup, diving, the turn order, rounds, the end of the game and timer-only turns."""

from __future__ import annotations

import pytest

from companion.engine import BadSetup, IllegalAction
from companion.games.drshark import GAME
from tests.games.drshark.helpers import FOUR, PAIR, play, types

SIX = ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay"]
QUIET_TURN = [{"type": "start_search"}, {"type": "stop"}, {"type": "end_turn"}]


def turn(space: str) -> list[dict]:
    return [{"type": "move", "space": space}, *QUIET_TURN]


# Setup ----------------------------------------------------------------------------


@pytest.mark.parametrize("players,teams,rounds", [
    (2, False, 10), (3, False, 10), (4, False, 8), (4, True, 6), (5, False, 8),
    (6, False, 6), (6, True, 6)])
def test_rounds_by_players_and_teams(players: int, teams: bool, rounds: int) -> None:
    state = GAME.new(SIX[:players], {"teams": teams})
    assert state.rounds == rounds and state.round == 1
    assert GAME.view(state)["rounds"] == rounds


def test_four_players_in_teams_pair_alternate_seats() -> None:
    state = GAME.new(FOUR, {"teams": True})
    assert list(state.dossiers) == ["Ann+Cid", "Ben+Dan"]
    assert GAME.view(state)["teams"] == {"Ann+Cid": ["Ann", "Cid"], "Ben+Dan": ["Ben", "Dan"]}
    assert GAME.scores(state) == {"Ann+Cid": 0, "Ben+Dan": 0}
    assert GAME.current(state) == "Ann"


def test_six_players_always_play_in_teams() -> None:
    for options in ({}, {"teams": True}, {"teams": False}):
        state = GAME.new(SIX, options)
        assert list(state.dossiers) == ["Ann+Dan", "Ben+Eve", "Cid+Fay"]


def test_four_players_play_alone_by_default() -> None:
    assert list(GAME.new(FOUR, {}).dossiers) == FOUR


@pytest.mark.parametrize("players", [2, 3, 5])
def test_teams_need_four_or_six(players: int) -> None:
    with pytest.raises(BadSetup, match="team play needs 4 or 6"):
        GAME.new(SIX[:players], {"teams": True})


@pytest.mark.parametrize("players,options,message", [
    (["Ann"], {}, "2 to 6"),
    ([*SIX, "Gus"], {}, "2 to 6"),
    (PAIR, {"teams": "yes"}, "true or false"),
    (PAIR, {"variant": 1}, "unknown option 'variant'"),
    (["A+B", "C", "D", "E"], {"teams": True}, "may not contain"),
])
def test_bad_setups_are_refused(players: list[str], options: dict, message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        GAME.new(GAME.check_players(players), options)


# Diving ---------------------------------------------------------------------------


def test_first_dive_may_go_to_any_empty_light_space() -> None:
    state = GAME.new(PAIR, {})
    move = next(leg for leg in GAME.legal(state) if leg.type == "move")
    assert list(move.choices["space"]) == ["A-light", "B-light", "C-light", "D-light",
                                           "E-light"]
    assert play(state, {"type": "move", "space": "C-light"}).positions["Ann"] == "C-light"


def test_dark_spaces_only_from_four_spies() -> None:
    with pytest.raises(IllegalAction, match=r"dark space.*4 or more"):
        GAME.apply(GAME.new(["Ann", "Ben", "Cid"], {}), {"type": "move", "space": "A-dark"})
    state = play(GAME.new(FOUR, {}), {"type": "move", "space": "A-dark"})
    assert state.positions["Ann"] == "A-dark"


def test_a_dive_must_be_to_an_empty_space() -> None:
    state = play(GAME.new(PAIR, {}), *turn("B-light"))
    with pytest.raises(IllegalAction, match="B-light is taken by Ann"):
        GAME.apply(state, {"type": "move", "space": "B-light"})


def test_a_dive_must_change_area() -> None:
    state = play(GAME.new(FOUR, {}), *turn("B-light"), *turn("C-light"), *turn("D-light"),
                 *turn("E-light"))
    assert GAME.current(state) == "Ann" and state.round == 2
    with pytest.raises(IllegalAction, match="in area B already"):
        GAME.apply(state, {"type": "move", "space": "B-dark"})
    move = next(leg for leg in GAME.legal(state) if leg.type == "move")
    assert sorted(move.choices["space"]) == ["A-dark", "A-light", "C-dark", "D-dark"]


def test_unknown_space_and_second_dive_are_refused() -> None:
    state = GAME.new(PAIR, {})
    with pytest.raises(IllegalAction, match="no space 'F-light'"):
        GAME.apply(state, {"type": "move", "space": "F-light"})
    state = play(state, {"type": "move", "space": "A-light"})
    with pytest.raises(IllegalAction, match="dived this turn already"):
        GAME.apply(state, {"type": "move", "space": "B-light"})


# Turn order and rounds ------------------------------------------------------------


def test_turn_needs_a_search_before_end_turn_and_one_search_only() -> None:
    state = GAME.new(PAIR, {})
    with pytest.raises(IllegalAction, match="dive and search"):
        GAME.apply(state, {"type": "end_turn"})
    state = play(state, {"type": "move", "space": "A-light"}, {"type": "start_search"},
                 {"type": "stop"})
    with pytest.raises(IllegalAction, match="searched this turn already"):
        GAME.apply(state, {"type": "start_search"})
    assert types(state) == ["end_turn", "tally"]


def test_turn_marker_advances_after_the_last_seat_and_the_game_ends() -> None:
    state = GAME.new(PAIR, {})
    spaces = ["A-light", "B-light", "C-light", "D-light"]
    for rnd in range(1, 11):
        assert state.round == rnd and GAME.current(state) == "Ann"
        state = play(state, *turn(spaces[rnd % 2 * 2]))
        assert state.round == rnd and GAME.current(state) == "Ben"
        state = play(state, *turn(spaces[rnd % 2 * 2 + 1]))
    assert GAME.is_over(state) and GAME.current(state) is None
    assert GAME.outcome(state).winners == ("Ann", "Ben")     # tied at 0
    with pytest.raises(IllegalAction, match="over"):
        GAME.apply(state, {"type": "move", "space": "E-light"})
    assert GAME.legal(state) == []


def test_team_play_current_is_the_player_and_the_team_dossier_grows() -> None:
    state = GAME.new(FOUR, {"teams": True})
    state = play(state, *turn("A-light"))
    assert GAME.current(state) == "Ben"
    state = play(state, *turn("B-light"), {"type": "move", "space": "E-light"},
                 {"type": "start_search"}, {"type": "take", "clue": "wig-1a"})
    assert GAME.current(state) == "Cid"
    assert state.dossiers["Ann+Cid"].clues == ("wig-1a",)
    assert GAME.scores(state) == {"Ann+Cid": 1, "Ben+Dan": 0}


def test_winners_are_everyone_tied_for_the_best() -> None:
    state = GAME.new(["Ann", "Ben", "Cid"], {})
    takes = {"Ann": "wig-1a", "Ben": "wig-2a"}
    for _ in range(30):
        player = GAME.current(state)
        state = play(state, {"type": "move", "space": free_other(state)},
                     {"type": "start_search"})
        if state.round == 1 and player in takes and state.search.method == "observation":
            state = play(state, {"type": "take", "clue": takes[player]})
        else:
            state = play(state, {"type": "stop"})
        state = play(state, {"type": "end_turn"})
    assert GAME.outcome(state).winners == ("Ann",)
    assert GAME.scores(state) == {"Ann": 1, "Ben": 0, "Cid": 0}


def free_other(state) -> str:
    """The E space when free, else the first free one."""
    move = next(leg for leg in GAME.legal(state) if leg.type == "move")
    spaces = list(move.choices["space"])
    return "E-light" if "E-light" in spaces else spaces[0]


# The timer hardware and timer-only tables -----------------------------------------


def test_legal_says_when_the_timer_may_start_and_stop() -> None:
    state = GAME.new(PAIR, {})
    assert "start_search" in types(state)
    assert not {"time_up", "stop"} & set(types(state))
    state = play(state, {"type": "move", "space": "A-light"})
    assert "start_search" in types(state)
    state = play(state, {"type": "start_search"})
    assert {"time_up", "stop"} <= set(types(state)) and "start_search" not in types(state)
    state = play(state, {"type": "time_up"})
    assert not {"start_search", "time_up", "stop"} & set(types(state))
    starts = [leg for leg in GAME.legal(play(state, {"type": "end_turn"}))
              if leg.type == "start_search"]
    assert starts and starts[0].player == "Ben"


def test_a_search_started_before_the_dive_takes_the_dive_late() -> None:
    state = play(GAME.new(PAIR, {}), {"type": "start_search"})
    assert {"move", "time_up", "stop"} <= set(types(state))
    with pytest.raises(IllegalAction, match="record the dive"):
        GAME.apply(state, {"type": "draw", "clue": "wig-1a"})
    state = play(state, {"type": "move", "space": "A-light"}, {"type": "draw", "clue": "wig-1a"})
    assert state.search.method == "shape" and state.search.clues == ("wig-1a",)


def test_timer_only_turns_pass_on_by_themselves_then_wait_for_the_tally() -> None:
    state = GAME.new(PAIR, {})
    for _ in range(20):
        state = play(state, {"type": "start_search"},
                     {"type": "time_up" if state.seat else "stop"})
    assert state.phase == "tally" and not GAME.is_over(state)
    assert types(state) == ["tally"]
    state = play(state, {"type": "tally", "dossiers": {
        "Ann": {"evidence": {"passport": 1}, "clues": 3}, "Ben": {"clues": 4}}})
    assert GAME.is_over(state) and GAME.scores(state) == {"Ann": 15, "Ben": 4}


def test_the_view_has_the_design_state_fields() -> None:
    state = play(GAME.new(FOUR, {"teams": True}), {"type": "move", "space": "C-dark"},
                 {"type": "start_search"}, {"type": "draw", "clue": "wig-1a"})
    view = GAME.view(state)
    assert view["round"] == 1 and view["rounds"] == 6
    assert view["positions"] == {"Ann": "C-dark", "Ben": None, "Cid": None, "Dan": None}
    assert view["dossiers"]["Ann+Cid"] == {"clues": [], "evidence": [], "clue_count": 0,
                                           "points": 0}
    assert "wig-1a" not in view["bag"] and len(view["bag"]) == 103
    assert view["search"]["area"] == "C" and view["search"]["clues"] == ["wig-1a"]
    assert view["search"]["ended"] is None
    summary = GAME.summary(state)
    assert summary["current"] == "Ann" and summary["scores"] == {"Ann+Cid": 0, "Ben+Dan": 0}
