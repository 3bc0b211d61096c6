"""The five search methods: how each one ends (mistake, shark, time, stop) and where
the clues go. Default catalogue shapes: passport a round, b square, c triangle, d star;
watch a moon, b triangle, c square; wig a star, b round, c heart; shark-1 is a blue
(documents) star, shark-4 a yellow (gadgets) triangle."""

from __future__ import annotations

import pytest

from companion.engine import IllegalAction
from companion.games.drshark import GAME
from tests.games.drshark.helpers import give, play, searching, types


def draw(*clues: str) -> list[dict]:
    return [{"type": "draw", "clue": c} for c in clues]


def mine(state) -> tuple[str, ...]:
    return state.dossiers[state.owner(state.player)].clues


# Area A: shapes -------------------------------------------------------------------


def test_area_a_keeps_different_shapes_and_ends_at_a_repeated_shape() -> None:
    state = play(searching("A-light"), *draw("passport-1a", "passport-1b", "watch-1a"))
    assert state.search.clues == ("passport-1a", "passport-1b", "watch-1a")
    assert "passport-1a" not in state.bag
    state = play(state, *draw("wig-1b"))          # round again: a mistake
    assert state.search.ended == "mistake" and "round" in state.search.note
    assert mine(state) == ("passport-1a", "passport-1b", "watch-1a")
    assert "wig-1b" in state.bag                   # back to the bag
    assert state.phase == "dossier"


def test_area_a_ends_at_a_shark_and_keeps_the_mat() -> None:
    state = play(searching("A-light"), *draw("passport-1a", "shark-4"))
    assert state.search.ended == "shark"
    assert mine(state) == ("passport-1a",)
    assert "shark-4" in state.bag


def test_area_a_ends_by_time_keeping_the_mat() -> None:
    state = play(searching("A-light"), *draw("passport-1a", "passport-1b"),
                 {"type": "time_up"})
    assert state.search.ended == "time_up"
    assert mine(state) == ("passport-1a", "passport-1b")
    with pytest.raises(IllegalAction, match="search is over"):
        GAME.apply(state, {"type": "draw", "clue": "passport-1c"})


def test_stop_ends_a_search_like_the_clock() -> None:
    state = play(searching("A-light"), *draw("passport-1a"), {"type": "stop"})
    assert state.search.ended == "stop" and mine(state) == ("passport-1a",)


# Area B: different textures -------------------------------------------------------


def test_area_b_keeps_different_textures_and_ends_at_a_repeated_one() -> None:
    state = play(searching("B-light"), *draw("passport-1a", "watch-1a", "wig-1a"))
    assert state.search.ended is None
    state = play(state, *draw("microfilm-2b"))     # documents again, another shape
    assert state.search.ended == "mistake" and "stripes" in state.search.note
    assert mine(state) == ("passport-1a", "watch-1a", "wig-1a")
    assert "microfilm-2b" in state.bag


def test_area_b_ends_at_a_shark() -> None:
    state = play(searching("B-light"), *draw("watch-1a", "shark-1"))
    assert state.search.ended == "shark" and mine(state) == ("watch-1a",)
    assert "shark-1" in state.bag


def test_area_b_ends_by_time() -> None:
    state = play(searching("B-light"), *draw("watch-1a", "wig-2c"), {"type": "time_up"})
    assert state.search.ended == "time_up" and mine(state) == ("watch-1a", "wig-2c")


# Area C: same texture -------------------------------------------------------------


def test_area_c_keeps_the_first_texture_and_ends_at_another() -> None:
    state = play(searching("C-light"), *draw("watch-1a", "watch-2a", "camera-pen-1b"))
    assert state.search.ended is None              # same shape is fine in C
    state = play(state, *draw("wig-1a"))
    assert state.search.ended == "mistake" and "grid" in state.search.note
    assert mine(state) == ("watch-1a", "watch-2a", "camera-pen-1b")
    assert "wig-1a" in state.bag


def test_area_c_ends_at_a_shark_even_of_the_same_colour() -> None:
    state = play(searching("C-light"), *draw("watch-1a", "shark-4"))
    assert state.search.ended == "shark" and mine(state) == ("watch-1a",)


def test_area_c_ends_by_time() -> None:
    state = play(searching("C-light"), *draw("watch-1a"), {"type": "time_up"})
    assert state.search.ended == "time_up" and mine(state) == ("watch-1a",)


def test_a_shark_as_the_first_draw_ends_with_nothing() -> None:
    state = play(searching("C-light"), *draw("shark-2"))
    assert state.search.ended == "shark" and mine(state) == ()
    assert len(state.bag) == len(state.catalogue.clues)


# Area D: the fistful --------------------------------------------------------------


def test_fistful_with_one_shark_returns_its_whole_colour() -> None:
    fist = ["shark-4", "watch-1a", "camera-pen-2b", "wig-1a", "passport-3c"]
    state = play(searching("D-light"), {"type": "fistful", "clues": fist})
    assert state.search.step == "select"
    assert state.search.clues == ("wig-1a", "passport-3c")
    assert {"shark-4", "watch-1a", "camera-pen-2b"} <= state.bag
    assert not {"wig-1a", "passport-3c"} & state.bag
    state = play(state, {"type": "select", "clues": ["wig-1a"]})
    assert state.search.ended == "done" and mine(state) == ("wig-1a",)
    assert "passport-3c" in state.bag             # not selected: back to the bag


def test_fistful_of_only_shark_colours_ends_the_search() -> None:
    state = play(searching("D-light"), {"type": "fistful", "clues": ["shark-4", "watch-2b"]})
    assert state.search.ended == "shark" and mine(state) == ()
    assert {"shark-4", "watch-2b"} <= state.bag


def test_select_keeps_at_most_one_clue_per_colour() -> None:
    state = play(searching("D-light"),
                 {"type": "fistful", "clues": ["wig-1a", "wig-2b", "watch-1c"]})
    with pytest.raises(IllegalAction, match="one clue per colour"):
        GAME.apply(state, {"type": "select", "clues": ["wig-1a", "wig-2b"]})
    with pytest.raises(IllegalAction, match="not among the sorted clues"):
        GAME.apply(state, {"type": "select", "clues": ["passport-1a"]})
    state = play(state, {"type": "select", "clues": ["wig-2b", "watch-1c"]})
    assert mine(state) == ("wig-2b", "watch-1c") and "wig-1a" in state.bag


def test_fistful_ends_by_time_before_the_fistful_with_nothing() -> None:
    state = play(searching("D-light"), {"type": "time_up"})
    assert state.search.ended == "time_up" and mine(state) == ()


def test_fistful_ends_by_time_while_sorting_keeping_what_was_selected_in_time() -> None:
    state = play(searching("D-light"),
                 {"type": "fistful", "clues": ["wig-1a", "watch-1c", "passport-2a"]},
                 {"type": "time_up"})
    assert state.search.clock == "time_up" and state.search.ended is None
    assert types(state) == ["select", "end_turn", "tally"]     # the clock no longer runs
    with pytest.raises(IllegalAction, match="clock has stopped"):
        GAME.apply(state, {"type": "stop"})
    state = play(state, {"type": "select", "clues": ["watch-1c"]})
    assert state.search.ended == "time_up" and mine(state) == ("watch-1c",)
    assert {"wig-1a", "passport-2a"} <= state.bag


FISTFUL = {"type": "fistful", "clues": ["wig-1a", "watch-1c", "passport-2a"]}


@pytest.mark.parametrize("clock", ["time_up", "stop"])
def test_ending_the_turn_after_the_clock_without_select_sends_the_fistful_back(
        clock: str) -> None:
    # RULINGS.md: the dossier phase begun without a select means nothing was selected
    state = play(searching("D-light"), FISTFUL, {"type": clock})
    assert "end_turn" in types(state)
    after = play(state, {"type": "end_turn"})
    assert GAME.describe(state, {"type": "end_turn"}, after) == (
        "Ann selected nothing in time (the fistful goes back to the bag) and ended the turn.")
    state = after
    assert state.player == "Ben" and state.phase == "move"
    assert state.dossiers["Ann"].clues == ()
    assert set(FISTFUL["clues"]) <= state.bag


def test_forming_after_the_clock_without_select_sends_the_fistful_back() -> None:
    state = play(searching("D-light"), FISTFUL, {"type": "time_up"})
    state = give(state, "Ann", ["passport-1a", "passport-1b", "passport-1c", "passport-1d"])
    assert "form" in types(state)
    state = play(state, {"type": "form", "evidence": "passport",
                         "clues": ["passport-1a", "passport-1b", "passport-1c", "passport-1d"]})
    assert state.phase == "dossier" and state.search.ended == "time_up"
    assert state.dossiers["Ann"].evidence == ("passport",)
    assert state.dossiers["Ann"].clues == ()
    assert set(FISTFUL["clues"]) <= state.bag


def test_a_refused_dossier_action_after_the_clock_changes_nothing() -> None:
    state = play(searching("D-light"), FISTFUL, {"type": "time_up"})
    for action in ({"type": "skip_service"},
                   {"type": "service", "from": "Ben", "take": "wig-2a"}):
        with pytest.raises(IllegalAction):
            GAME.apply(state, action)
    assert state.search.clues == tuple(FISTFUL["clues"])
    assert play(state, {"type": "select", "clues": ["wig-1a"]}).dossiers["Ann"].clues == (
        "wig-1a",)


def test_a_fistful_needs_clues_from_the_bag() -> None:
    state = searching("D-light")
    with pytest.raises(IllegalAction, match="at least one"):
        GAME.apply(state, {"type": "fistful", "clues": []})
    with pytest.raises(IllegalAction, match="twice"):
        GAME.apply(state, {"type": "fistful", "clues": ["wig-1a", "wig-1a"]})
    with pytest.raises(IllegalAction, match="fistful comes next, not select"):
        GAME.apply(state, {"type": "select", "clues": []})


# Area E: observation --------------------------------------------------------------


def test_area_e_takes_one_clue_of_choice() -> None:
    state = play(searching("E-light"), {"type": "take", "clue": "passport-2d"})
    assert state.search.ended == "done" and mine(state) == ("passport-2d",)


def test_area_e_refuses_a_shark() -> None:
    with pytest.raises(IllegalAction, match="shark"):
        GAME.apply(searching("E-light"), {"type": "take", "clue": "shark-1"})


def test_area_e_ends_by_time_with_nothing() -> None:
    state = play(searching("E-light"), {"type": "time_up"})
    assert state.search.ended == "time_up" and mine(state) == ()


# The bag --------------------------------------------------------------------------


def test_drawing_a_clue_that_is_not_in_the_bag_is_an_error() -> None:
    state = play(searching("A-light"), *draw("passport-1a"))
    with pytest.raises(IllegalAction, match="passport-1a is not in the bag: it is on the mat"):
        GAME.apply(state, {"type": "draw", "clue": "passport-1a"})
    with pytest.raises(IllegalAction, match="no clue 'nonsense'"):
        GAME.apply(state, {"type": "draw", "clue": "nonsense"})
    # Ann keeps passport-1a; in Ben's search it is in her dossier.
    state = play(state, {"type": "stop"}, {"type": "end_turn"},
                 {"type": "move", "space": "B-light"}, {"type": "start_search"})
    with pytest.raises(IllegalAction, match="in Ann's dossier"):
        GAME.apply(state, {"type": "draw", "clue": "passport-1a"})


def test_each_area_only_takes_its_own_method() -> None:
    with pytest.raises(IllegalAction, match="one by one"):
        GAME.apply(searching("A-light"), {"type": "take", "clue": "wig-1a"})
    with pytest.raises(IllegalAction, match="observation"):
        GAME.apply(searching("E-light"), {"type": "draw", "clue": "wig-1a"})
    with pytest.raises(IllegalAction, match="fistful"):
        GAME.apply(searching("D-light"), {"type": "draw", "clue": "wig-1a"})


def test_search_actions_need_a_started_search() -> None:
    state = play(GAME.new(["Ann", "Ben"], {}), {"type": "move", "space": "A-light"})
    assert types(state) == ["start_search", "tally"]
    for action in ({"type": "draw", "clue": "wig-1a"}, {"type": "time_up"},
                   {"type": "stop"}):
        with pytest.raises(IllegalAction, match="start the search first"):
            GAME.apply(state, action)


@pytest.mark.parametrize("space,step", [("A-light", "draw"), ("B-light", "draw"),
                                        ("C-light", "draw"), ("D-light", "fistful"),
                                        ("E-light", "take")])
def test_time_up_and_stop_are_legal_in_every_search_phase(space: str, step: str) -> None:
    state = searching(space)
    assert {step, "time_up", "stop"} <= set(types(state))
    assert "start_search" not in types(state)
    for clock in ("time_up", "stop"):
        assert GAME.apply(state, {"type": clock}).search.ended == clock


def test_time_up_and_stop_are_legal_while_sorting_a_fistful() -> None:
    state = play(searching("D-light"), {"type": "fistful", "clues": ["wig-1a"]})
    assert {"select", "time_up", "stop"} <= set(types(state))


def test_the_search_notes_name_the_pieces_not_the_catalogue() -> None:
    """What the page and the log say of how a search ended names the pieces as they
    read ("wig b", "Gadgets"), never a catalogue id ("wig-1b", "gadgets")."""
    state = play(searching("A-light"), *draw("passport-1a", "wig-1b"))
    assert state.search.note == "wig b is round, a shape already on the mat"
    state = play(searching("B-light"), *draw("passport-1a", "passport-2b"))
    assert state.search.note.startswith("passport b has a texture (stripes, Fake Documents)")
    state = play(searching("A-light"), *draw("shark-4"))
    assert state.search.note == "the sharks are getting too close: out of the pool!"
    fist = ["shark-4", "watch-1a", "wig-1a"]
    state = play(searching("D-light"), {"type": "fistful", "clues": fist})
    assert state.search.note == "shark! back to the bag: every Gadgets clue"
    with pytest.raises(IllegalAction, match=r"^a shark is not a clue: take a clue$"):
        GAME.apply(searching("E-light"), {"type": "take", "clue": "shark-1"})
