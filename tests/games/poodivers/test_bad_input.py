"""Bad input in Tokyo Poo Divers actions and options: refused with a message, never a
crash."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import BadSetup, IllegalAction
from companion.games.poodivers import GAME, PooState
from companion.games.poodivers.layout import card_cells, rows_of
from tests.games.junk import json_values, like
from tests.support import driver

actions = st.fixed_dictionaries(
    {"type": like("flip", "bank", "peek")},
    optional={"cell": like("A1", "H8", "Z9", "b2"), "face": like("blank", "sleeper", "object")},
)


def reached(seed: int, steps: int, digital: bool) -> PooState:
    state: PooState = driver.reached(GAME, ["Ann", "Ben"], {"digital": digital}, seed, steps)
    return state


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**16), steps=st.integers(0, 30), digital=st.booleans(),
       action=st.one_of(actions, json_values))
def test_any_action_is_applied_or_refused_with_a_message(
        seed: int, steps: int, digital: bool, action: object) -> None:
    state = reached(seed, steps, digital)
    try:
        GAME.view(GAME.apply(state, action))  # type: ignore[arg-type]
    except IllegalAction as err:
        assert str(err)


@settings(max_examples=80, deadline=None)
@given(options=st.dictionaries(st.sampled_from(["layout", "digital", "deal"]),
                               like("square", "cow", True, ["#" * 8] * 8), max_size=3))
def test_any_options_are_played_or_refused_with_a_message(options: dict) -> None:
    try:
        GAME.new(["Ann", "Ben"], GAME.prepare(["Ann", "Ben"], options, random.Random(1)))
    except BadSetup as err:
        assert str(err)


@settings(max_examples=40, deadline=None)
@given(face=json_values)
def test_a_deal_naming_something_that_is_no_face_is_refused(face: object) -> None:
    cells = [str(c) for c in card_cells(rows_of("square"))]
    deal = {c: "object" for c in cells[:40]} | {c: face for c in cells[40:]}
    try:
        GAME.new(["Ann", "Ben"], {"digital": True, "deal": deal})
    except BadSetup as err:
        assert "deal" in str(err)
    else:
        assert face in ("blank", "sleeper")
