"""Tokyo Poo Divers rules, one test per rule and ruling, and the rulebook's examples."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.engine import BadSetup, IllegalAction
from companion.games.poodivers import GAME, PooState
from companion.grid import Cell

LU, MAX = "Lu", "Max"


def new(**options: object) -> PooState:
    return GAME.new([LU, MAX], options)


def play(state: PooState, *actions: dict) -> PooState:
    for action in actions:
        state = GAME.apply(state, action)
    return state


def flip(cell: str, face: str | None = None) -> dict:
    return {"type": "flip", "cell": cell, **({"face": face} if face else {})}


def opened(state: PooState, **faces: str) -> PooState:
    """The same state with some cards already open (the table as the example shows it)."""
    return replace(state, cells={**state.cells, **{Cell.parse(c): f for c, f in faces.items()}})


def score(state: PooState, player: str) -> int:
    return GAME.scores(state)[player]


# The rulebook's examples C1, C2, C3 ---------------------------------------------------

EXAMPLE = {"D3": "object", "D2": "object", "E4": "object", "C3": "object", "E5": "object",
           "F6": "blank", "B4": "object", "A4": "sleeper"}


def test_example_c1_first_object_scores_one_plus_its_star_runs() -> None:
    # Runs from D4: north D3, D2 (2); east E4 (1); north-west C3 (1); south-east E5,
    # then F6 is a blank, which stops that run (1); west: C4 is closed, so B4 is not
    # reached. 1 + 5 = 6.
    state = play(opened(new(), **EXAMPLE), flip("D4", "object"))
    assert state.turn_points == 6
    assert GAME.view(state)["diver"] == {"cell": "D4", "direction": None}


def test_example_c1_six_points() -> None:
    cells = {k: v for k, v in EXAMPLE.items() if k != "B4"}
    state = play(opened(new(), **cells), flip("D4", "object"))
    assert state.turn_points == 6


def test_example_c2_second_object_is_worth_two() -> None:
    cells = {k: v for k, v in EXAMPLE.items() if k != "B4"}
    state = play(opened(new(), **cells), flip("D4", "object"), flip("C5", "object"))
    assert state.turn_points == 8
    assert GAME.view(state)["diver"] == {"cell": "D4", "direction": "SW"}


def test_example_c3_blank_loses_the_turn_and_allows_a_peek() -> None:
    cells = {k: v for k, v in EXAMPLE.items() if k != "B4"}
    state = play(opened(new(), **cells), flip("D4", "object"), flip("C5", "object"),
                 flip("B6", "blank"))
    assert score(state, LU) == 0
    assert GAME.current(state) == MAX
    assert state.peek_for == LU
    state = play(state, {"type": "peek", "cell": "H8"})
    assert state.peek_for is None and state.cells[Cell.parse("H8")] == "closed"


# Flips at the start of a turn ---------------------------------------------------------

def test_blank_passes_the_turn_with_no_points() -> None:
    state = play(new(), flip("A1", "blank"))
    assert GAME.current(state) == MAX
    assert GAME.scores(state) == {LU: 0, MAX: 0}


def test_sleeper_at_the_start_means_flip_again() -> None:
    state = play(new(), flip("A1", "sleeper"))
    assert GAME.current(state) == LU
    state = play(state, flip("H8", "object"))
    assert state.diver == Cell.parse("H8")


def test_a_lone_object_with_closed_neighbours_waits_for_bank_or_dive() -> None:
    state = play(new(), flip("C3", "object"))
    assert state.turn_points == 1 and state.diving
    assert [a.type for a in GAME.legal(state)] == ["bank", "flip"]
    state = play(state, {"type": "bank"})
    assert score(state, LU) == 1 and GAME.current(state) == MAX


def test_open_cards_cannot_be_flipped_again() -> None:
    state = play(new(), flip("A1", "blank"))
    with pytest.raises(IllegalAction, match="A1 is already open"):
        play(state, flip("A1", "object"))


def test_cell_outside_the_layout_is_refused() -> None:
    with pytest.raises(IllegalAction, match="no card at I1"):
        play(new(), flip("I1", "object"))
    with pytest.raises(IllegalAction, match="A1"):
        play(GAME.new([LU, MAX], {"layout": "donut"}), flip("A1", "object"))


def test_face_is_required_at_a_physical_table() -> None:
    with pytest.raises(IllegalAction, match="face is one of"):
        play(new(), flip("A1"))
    with pytest.raises(IllegalAction, match="face is one of"):
        play(new(), flip("A1", "gold"))


def test_bank_needs_an_object_first() -> None:
    with pytest.raises(IllegalAction, match="nothing to bank"):
        play(new(), {"type": "bank"})


# Diving -------------------------------------------------------------------------------

def test_first_dive_flip_must_be_next_to_the_diver() -> None:
    state = play(new(), flip("D4", "object"))
    with pytest.raises(IllegalAction, match="D6 is not on the dive"):
        play(state, flip("D6", "object"))


def test_later_dive_flips_follow_the_direction_from_the_last_object() -> None:
    state = play(new(), flip("D4", "object"), flip("E4", "object"))
    with pytest.raises(IllegalAction, match="F4, the next card E of E4"):
        play(state, flip("E5", "object"))
    state = play(state, flip("F4", "object"), flip("G4", "object"))
    assert state.turn_points == 1 + 2 + 3 + 4
    assert state.diver == Cell.parse("D4") and state.direction == "E"


def test_kth_object_has_no_run_bonus() -> None:
    # E3 is in D4's star (NE) and next to E4 (N): it counts for the first find only.
    state = opened(new(), E3="object")
    state = play(state, flip("D4", "object"), flip("E4", "object"))
    assert state.turn_points == (1 + 1) + 2


def test_sleeper_during_a_dive_banks_the_points() -> None:
    state = play(new(), flip("D4", "object"), flip("E4", "object"), flip("F4", "sleeper"))
    assert score(state, LU) == 3 and GAME.current(state) == MAX


def test_automatic_bank_at_the_edge_of_the_layout() -> None:
    state = play(new(), flip("F1", "object"), flip("G1", "object"), flip("H1", "object"))
    assert score(state, LU) == 6 and GAME.current(state) == MAX


def test_automatic_bank_when_no_closed_neighbour() -> None:
    state = opened(new(), A2="blank", B1="blank", B2="sleeper")
    state = play(state, flip("A1", "object"))
    assert score(state, LU) == 1 and GAME.current(state) == MAX


def test_dive_stops_at_a_gap_in_the_layout() -> None:
    # donut: row 4 has a hole at D4..F4; diving east from B4 into C4 ends at the hole.
    state = GAME.new([LU, MAX], {"layout": "donut"})
    state = play(state, flip("B4", "object"), flip("C4", "object"))
    assert score(state, LU) == 3 and GAME.current(state) == MAX


# Peeks --------------------------------------------------------------------------------

def test_peek_only_right_after_a_blank() -> None:
    with pytest.raises(IllegalAction, match="right after drawing a blank"):
        play(new(), {"type": "peek", "cell": "A1"})
    state = play(new(), flip("A1", "blank"), flip("B1", "blank"))
    state = play(state, {"type": "peek", "cell": "C1"})
    with pytest.raises(IllegalAction, match="right after"):
        play(state, {"type": "peek", "cell": "C2"})


def test_peek_lapses_when_the_next_player_flips() -> None:
    state = play(new(), flip("A1", "blank"), flip("B1", "object"))
    with pytest.raises(IllegalAction, match="right after"):
        play(state, {"type": "peek", "cell": "C1"})


def test_peek_at_an_open_card_is_refused() -> None:
    state = play(new(), flip("A1", "blank"))
    with pytest.raises(IllegalAction, match="A1 is already open"):
        play(state, {"type": "peek", "cell": "A1"})


# The supply ---------------------------------------------------------------------------

def with_points(state: PooState, points: int) -> PooState:
    return replace(state, diving=True, found=1, turn_points=points, diver=Cell.parse("A1"),
                   last=Cell.parse("A1"))


def test_bank_pays_golden_for_full_fives_and_brown_for_the_rest() -> None:
    state = play(with_points(new(), 13), {"type": "bank"})
    assert state.holdings[LU] == {"brown": 3, "golden": 2}
    assert state.supply == {"brown": 17, "golden": 28}


def test_five_brown_are_exchanged_for_a_golden() -> None:
    state = replace(new(), holdings={LU: {"brown": 4, "golden": 0}, MAX: {"brown": 0,
                    "golden": 0}}, supply={"brown": 16, "golden": 30})
    state = play(with_points(state, 3), {"type": "bank"})
    assert state.holdings[LU] == {"brown": 2, "golden": 1}
    assert state.supply == {"brown": 18, "golden": 29}


def test_when_golden_runs_out_five_brown_pay_instead() -> None:
    state = replace(new(), supply={"brown": 20, "golden": 1})
    state = play(with_points(state, 12), {"type": "bank"})
    assert state.holdings[LU] == {"brown": 7, "golden": 1}
    assert GAME.scores(state)[LU] == 12


def test_brown_handed_back_in_an_exchange_pays_the_rest_of_the_points() -> None:
    # One brown left in the supply, 2 points to pay, Lu holds 4 brown: the first brown
    # makes 5, Lu exchanges them for a golden, and the supply can pay the second point.
    state = replace(new(), holdings={LU: {"brown": 4, "golden": 0}, MAX: {"brown": 0,
                    "golden": 0}}, supply={"brown": 1, "golden": 5})
    state = play(with_points(state, 2), {"type": "bank"})
    assert state.holdings[LU] == {"brown": 1, "golden": 1}
    assert state.supply == {"brown": 4, "golden": 4}
    assert score(state, LU) == 4 + 2


def test_points_the_supply_cannot_pay_are_lost_and_the_game_ends() -> None:
    state = replace(new(), supply={"brown": 2, "golden": 1})
    state = play(with_points(state, 11), {"type": "bank"})
    assert state.holdings[LU] == {"brown": 2, "golden": 1}
    assert GAME.outcome(state) is not None
    assert GAME.outcome(state).reason == "the turd supply is empty"
    assert GAME.current(state) is None
    with pytest.raises(IllegalAction, match="over"):
        play(state, flip("H8", "blank"))


# The end ------------------------------------------------------------------------------

def last_card_left(state: PooState, cell: str) -> PooState:
    """Every card open but ``cell``: 13 blanks, 14 sleepers, 36 objects."""
    faces = iter(["blank"] * 13 + ["sleeper"] * 14 + ["object"] * 36)
    return replace(state, cells={c: (next(faces) if c != Cell.parse(cell) else "closed")
                                 for c in state.cells})


def test_game_ends_after_the_last_card_and_its_turn() -> None:
    state = play(last_card_left(new(), "A1"), flip("A1", "object"))  # A2, B1, B2 blank
    assert score(state, LU) == 1
    assert GAME.outcome(state).reason == "the last card is open"


def test_last_card_blank_ends_without_a_peek() -> None:
    state = play(last_card_left(new(), "D4"), flip("D4", "blank"))
    assert GAME.is_over(state) and state.peek_for is None


def test_ties_share_the_win() -> None:
    state = replace(new(), holdings={LU: {"brown": 1, "golden": 1}, MAX: {"brown": 6,
                    "golden": 0}})
    state = play(last_card_left(state, "D4"), flip("D4", "blank"))
    assert GAME.outcome(state).winners == (LU, MAX)
    assert GAME.summary(state)["winners"] == [LU, MAX]


def test_a_fifteenth_blank_is_an_error() -> None:
    state = opened(new(), **{f"{c}1": "blank" for c in "ABCDEFGH"},
                   **{f"{c}2": "blank" for c in "ABCDEF"})
    with pytest.raises(IllegalAction, match="only 14 blank cards"):
        play(state, flip("H8", "blank"))


def test_flip_offers_only_faces_the_deck_still_holds() -> None:
    state = opened(new(), **{f"{c}1": "blank" for c in "ABCDEFGH"},
                   **{f"{c}2": "blank" for c in "ABCDEF"})
    flips = [leg for leg in GAME.legal(state) if leg.type == "flip"]
    assert list(flips[0].choices["face"]) == ["sleeper", "object"]


# Layouts ------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "width", "height", "cards"), [
    ("square", 8, 8, 64), ("donut", 9, 9, 68), ("mascot", 11, 10, 67),
    ("lovers", 11, 9, 63), ("cow", 9, 9, 68), ("shithead", 9, 10, 65)])
def test_named_layouts_have_the_rulebooks_card_counts(
        name: str, width: int, height: int, cards: int) -> None:
    state = GAME.new([LU, MAX], {"layout": name})
    assert len(state.cells) == cards
    assert len(state.rows) == height and {len(r) for r in state.rows} == {width}


def test_custom_layout_from_row_strings() -> None:
    rows = ["#" * 10] * 6 + ["#" * 4 + "." * 6]
    state = GAME.new([LU, MAX], {"layout": rows})
    assert len(state.cells) == 64 and Cell.parse("E7") not in state.cells
    assert Cell.parse("D7") in state.cells


@pytest.mark.parametrize(("layout", "message"), [
    (["#" * 10] * 5 + ["#" * 9], "row 6 has 9 cells"),
    (["#" * 10] * 5 + ["#" * 9 + "x"], "a cell is \"#\" for a card"),
    (["#" * 10] * 5, "50 cards"),
    (["#" * 10] * 7 + ["#"* 10], "80 cards"),
    ("hexagon", "unknown layout"),
    (42, "a layout is a name"),
])
def test_bad_layouts_are_refused(layout: object, message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        GAME.new([LU, MAX], {"layout": layout})


def test_unknown_options_and_players_are_refused() -> None:
    with pytest.raises(BadSetup, match="unknown option 'board'"):
        GAME.new([LU, MAX], {"board": "classic"})
    with pytest.raises(BadSetup, match="same name"):
        GAME.check_players([LU, LU])
    with pytest.raises(BadSetup, match="2 to 8 players, not 1"):
        GAME.check_players([LU])


# Digital play -------------------------------------------------------------------------

def test_digital_play_deals_a_seeded_shuffle_and_reveals_faces() -> None:
    import random

    options = GAME.prepare([LU, MAX], {"digital": True}, random.Random(7))
    deal = options["deal"]
    assert len(deal) == 64 and options == GAME.prepare([LU, MAX], {"digital": True},
                                                        random.Random(7))
    state = GAME.new([LU, MAX], options)
    action = GAME.resolve(state, flip("A1"), random.Random(0))
    assert action == flip("A1", deal["A1"])
    assert GAME.apply(state, action).cells[Cell.parse("A1")] == deal["A1"]
    assert "face" not in GAME.legal(state)[0].choices
    wrong = next(f for f in ("blank", "sleeper", "object") if f != deal["A1"])
    with pytest.raises(IllegalAction, match="companion reveals the cards"):
        GAME.apply(state, flip("A1", wrong))


def test_a_deal_with_too_many_blanks_is_refused() -> None:
    cells = [str(c) for c in GAME.new([LU, MAX], {}).cells]
    with pytest.raises(BadSetup, match="64 blank cards"):
        GAME.new([LU, MAX], {"digital": True, "deal": dict.fromkeys(cells, "blank")})
