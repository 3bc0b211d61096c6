"""Each placement rule, accepted and refused, through the engine."""

from __future__ import annotations

import pytest

from companion.engine import BadSetup, IllegalAction
from companion.games.shoal.rules import GAME
from tests.games.shoal.helpers import E, Table, inline_deck, start

CARDS = {
    "A": [["angel", "angel"], ["angel", "angel"]],
    "A2": [["angel", "angel"], ["angel", "angel"]],
    "L": [[E, "clown"], [E, "clown"]],
    "L2": [[E, "clown"], [E, "clown"]],
    "R": [["clown", E], ["clown", E]],
    "EE": [[E, E], [E, E]],
    "D": [[E, E], [E, "clown"]],
    "Z": [[E, E], [E, "clown"]],
    "T": [["tang", "tang"], [E, E]],
}


def visible(table: Table, player: str = "Ann") -> dict[tuple[int, int], str]:
    return dict(table.state.shoals[player])


# First card at [0, 0] ----------------------------------------------------------


def test_first_card_at_origin_accepted() -> None:
    t = Table(CARDS)
    t.ann("A", [0, 0])
    assert visible(t) == {(0, 0): "angel", (1, 0): "angel", (0, 1): "angel",
                          (1, 1): "angel"}


def test_first_card_elsewhere_refused() -> None:
    t = Table(CARDS)
    with pytest.raises(IllegalAction, match=r"first card of a shoal goes at \[0, 0\], "
                                            r"not \[1, 0\]"):
        t.ann("A", [1, 0])
    assert t.state.seat == 0 and not t.state.laid


# Cover a section ------------------------------------------------------------------


@pytest.mark.parametrize("at", [[1, 1], [-1, -1], [1, -1], [0, 1]])
def test_card_covering_a_section_accepted(at: list[int]) -> None:
    t = Table(CARDS)
    t.ann("A", [0, 0])
    t.ann("A2", at)
    assert visible(t)[at[0], at[1]] == "angel"
    assert len(visible(t)) == 4 + 4 - (2 - abs(at[0])) * (2 - abs(at[1]))


@pytest.mark.parametrize("at", [[2, 0], [0, -2], [2, 2], [-2, 1]])
def test_card_beside_the_shoal_refused(at: list[int]) -> None:
    t = Table(CARDS)
    t.ann("A", [0, 0])
    before = t.state
    with pytest.raises(IllegalAction, match=r"layered on top of the shoal, not beside it: "
                                            rf"A2 at \[{at[0]}, {at[1]}\] would cover none "
                                            r"of Ann's shoal's sections \(it would lie on"):
        t.ann("A2", at)
    assert t.state is before


def test_covering_another_players_shoal_does_not_count() -> None:
    # Ben's shoal lies at [0, 0] too, but a card must lie on its own player's shoal
    t = Table(CARDS)
    t.ann("A", [0, 0])
    with pytest.raises(IllegalAction, match="none of Ann's shoal's sections"):
        t.ann("A2", [5, 5])


# Empty over empty, never over fish ----------------------------------------------------


def test_empty_over_empty_accepted() -> None:
    t = Table(CARDS)
    t.ann("L", [0, 0])
    t.ann("EE", [-1, 0])
    assert visible(t)[0, 0] == E and visible(t)[1, 0] == "clown"


def test_fish_over_fish_and_fish_over_empty_accepted() -> None:
    t = Table(CARDS)
    t.ann("L", [0, 0])          # (0,0) empty, (1,0) clown
    t.ann("A", [0, 0])          # angels over the empties and the clowns
    assert set(visible(t).values()) == {"angel"}


def test_empty_over_fish_refused() -> None:
    t = Table(CARDS)
    t.ann("A", [0, 0])
    with pytest.raises(IllegalAction, match=r"empty space can only cover empty space: R's "
                                            r"top-right section is empty and would cover the "
                                            r"angel at \[0, 0\]"):
        t.ann("R", [-1, 0])


def test_empty_over_fish_refused_names_the_bottom_section() -> None:
    t = Table(CARDS)
    t.ann("A", [0, 0])
    with pytest.raises(IllegalAction, match=r"T's bottom-left section is empty and would "
                                            r"cover the angel at \[0, 0\]"):
        t.ann("T", [0, -1])


# Fish join fish -------------------------------------------------------------------


def test_fish_next_to_fish_accepted() -> None:
    t = Table(CARDS)
    t.ann("L", [0, 0])          # clowns at (1,0), (1,1)
    t.ann("L2", [-1, 0])        # its clowns at (0,0), (0,1): next to them
    assert visible(t)[0, 0] == "clown"


def test_fish_covering_fish_accepted() -> None:
    t = Table(CARDS)
    t.ann("L", [0, 0])
    t.ann("R", [1, 0])          # its clowns cover the clowns at (1,0), (1,1)
    assert visible(t)[2, 0] == E


def test_fish_not_touching_fish_refused() -> None:
    t = Table(CARDS)
    t.ann("L", [0, 0])          # empties at (0,0), (0,1)
    with pytest.raises(IllegalAction, match=r"fish must join fish, covering one or next to "
                                            r"one \(not diagonally\): none of R's fish "
                                            r"sections \(\[-1, 0\] clown, \[-1, 1\] clown\)"):
        t.ann("R", [-1, 0])


def test_fish_only_diagonal_to_fish_refused() -> None:
    t = Table(CARDS)
    t.ann("D", [0, 0])          # the only fish at (1,1)
    with pytest.raises(IllegalAction, match=r"not diagonally.*\[0, 0\] clown"):
        t.ann("Z", [-1, -1])    # its fish at (0,0), diagonal to (1,1)


def test_card_without_fish_needs_no_connection() -> None:
    t = Table(CARDS)
    t.ann("D", [0, 0])
    t.ann("EE", [-1, -1])       # covers the empty (0,0) only
    assert visible(t)[-1, -1] == E


def test_first_fish_on_a_fishless_shoal_needs_no_connection() -> None:
    t = Table(CARDS)
    t.ann("EE", [0, 0])
    t.ann("R", [1, 1])          # nothing to join yet: allowed (docs/shoal.md)
    assert visible(t)[1, 1] == "clown"


# Whole-section offsets, no rotation, each card once ---------------------------------------


def test_whole_section_offsets_accepted() -> None:
    t = Table(CARDS)
    t.ann("A", [0, 0])
    t.ann("A2", [-1, 1])
    assert (-1, 2) in visible(t)


@pytest.mark.parametrize("at", [[0.5, 0], [0, 1.0], ["0", 0], [0], [0, 0, 0], "0,0", None,
                                [True, 0]])
def test_offsets_not_whole_sections_refused(at: object) -> None:
    t = Table(CARDS)
    with pytest.raises(IllegalAction, match=r"whole-section offsets: \"at\" is two whole "
                                            r"numbers \[x, y\]"):
        t.ann("A", at)


def test_unrotated_card_accepted() -> None:
    t = Table(CARDS)
    t.ann("L", [0, 0], rotation=0)
    assert visible(t)[1, 0] == "clown"


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_rotation_refused(rotation: int) -> None:
    t = Table(CARDS)
    with pytest.raises(IllegalAction, match="cannot be rotated: fish always swim to the left"):
        t.ann("L", [0, 0], rotation=rotation)


def test_each_card_once_per_game() -> None:
    t = Table(CARDS)
    t.ann("A", [0, 0])
    t.ann("A2", [0, 0])
    with pytest.raises(IllegalAction, match="each card is played once per game: A is already "
                                            "in Ann's shoal"):
        t.ann("A", [0, 0])


def test_a_card_laid_by_another_player_is_refused_too() -> None:
    t = Table(CARDS)
    t.ann("A", [0, 0])          # Ben answered with X01
    with pytest.raises(IllegalAction, match="X01 is already in Ben's shoal"):
        t.ann("X01", [0, 0])


def test_unknown_card_refused() -> None:
    t = Table(CARDS)
    with pytest.raises(IllegalAction, match="there is no card 'F99' in the deck"):
        t.ann("F99", [0, 0])


# Turns, 10 cards each, 2-4 players ------------------------------------------------------


def test_turns_pass_in_seat_order_and_end_after_ten_cards_each() -> None:
    state = start(CARDS, players=2)
    cards = [f"X{n:02d}" for n in range(1, 21)]
    for n, card in enumerate(cards):
        assert GAME.current(state) == ("Ann" if n % 2 == 0 else "Ben")
        state = GAME.apply(state, {"type": "play", "card": card, "at": [0, 0]})
    assert GAME.current(state) is None
    assert GAME.outcome(state) is not None
    assert [len(state.plays[p]) for p in ("Ann", "Ben")] == [10, 10]
    with pytest.raises(IllegalAction, match="the game is over: every player has laid 10"):
        GAME.apply(state, {"type": "play", "card": "A", "at": [0, 0]})


def test_the_player_field_must_name_the_player_to_act() -> None:
    state = start(CARDS)
    GAME.apply(state, {"type": "play", "card": "A", "at": [0, 0], "player": "Ann"})
    with pytest.raises(IllegalAction, match="it is Ann's turn, not Ben's"):
        GAME.apply(state, {"type": "play", "card": "A", "at": [0, 0], "player": "Ben"})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_to_four_players_accepted(players: int) -> None:
    names = ["Ann", "Ben", "Cid", "Dee"][:players]
    state = GAME.new(GAME.check_players(names), {"goal": "G1"})
    assert list(GAME.players(state)) == names


@pytest.mark.parametrize("players", [1, 5])
def test_other_numbers_of_players_refused(players: int) -> None:
    names = ["Ann", "Ben", "Cid", "Dee", "Eve"][:players]
    with pytest.raises(BadSetup, match=f"played by 2 to 4 players, not {players}"):
        GAME.check_players(names)


def test_deck_too_small_for_the_players_refused() -> None:
    with pytest.raises(BadSetup, match="3 players lay 30 cards but the deck has only 29"):
        GAME.new(["Ann", "Ben", "Cid"], {"deck": inline_deck(CARDS), "goal": "T"})
