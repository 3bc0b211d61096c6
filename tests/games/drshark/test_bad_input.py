"""Bad input in Dr. Shark actions and options: refused with a message, never a crash."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import BadSetup, IllegalAction
from companion.games.drshark import GAME, DrSharkState
from companion.games.drshark.catalogue import default
from tests.games.drshark.play import habits, spy
from tests.games.junk import json_values, like, spoiled
from tests.support import driver

TYPES = ("move", "start_search", "draw", "fistful", "select", "take", "time_up", "stop",
         "form", "service", "skip_service", "end_turn", "tally")
FIELDS = ("space", "clue", "clues", "evidence", "from", "take", "give", "dossiers")
actions = st.fixed_dictionaries(
    {"type": like(*TYPES)},
    optional={f: like("A-light", "D-dark", "watch-1a", "shark-1", ["watch-1a"], "Ann",
                      "watch", {"Ann": {"clues": 1}}) for f in FIELDS},
)


def reached(seed: int, steps: int, players: list[str]) -> DrSharkState:
    """A state some way into a random legal game."""
    state: DrSharkState = driver.reached(GAME, players, {}, seed, steps, habits(), spy)
    return state


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**16), steps=st.integers(0, 40),
       players=st.sampled_from([["Ann", "Ben"], ["Ann", "Ben", "Cid", "Dan"]]),
       action=st.one_of(actions, json_values))
def test_any_action_is_applied_or_refused_with_a_message(
        seed: int, steps: int, players: list[str], action: object) -> None:
    state = reached(seed, steps, players)
    try:
        GAME.view(GAME.apply(state, action))  # type: ignore[arg-type]
    except IllegalAction as err:
        assert str(err)


def test_an_action_type_that_is_not_a_word_is_refused() -> None:
    kind: object
    for kind in ([], {}, ["move"], None, 3):
        try:
            GAME.apply(GAME.new(["Ann", "Ben"], {}), {"type": kind})
        except IllegalAction as err:
            assert "type" in str(err)
        else:
            raise AssertionError(f"type {kind!r} was accepted")


paths = st.lists(st.one_of(st.integers(0, 40), st.sampled_from(
    ["id", "area", "dark", "evidence", "part", "shape", "category", "shark", "points",
     "parts", "service", "name", "colour", "copies", "shapes", "sharks"])), max_size=4)


@settings(max_examples=120, deadline=None)
@given(option=st.sampled_from(["catalogue", "board", "teams"]), path=paths,
       junk=json_values)
def test_any_spoiled_option_is_played_or_refused_with_a_message(
        option: str, path: list[int | str], junk: object) -> None:
    good = {"catalogue": default().to_json(), "board": GAME.new(["A", "B"], {}).board
            .to_json(), "teams": True}[option]
    try:
        GAME.new(["Ann", "Ben", "Cid", "Dan"], {option: spoiled(good, path, junk)})
    except BadSetup as err:
        assert str(err)
