"""``tally``: shoals laid on the table alone, counted as they lie (the camera view sends
what it read), scored with the goal card across every shoal."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import BrokenRule, GameOver, Malformed, Termination, replay
from companion.games.shoal.layout import from_cells, to_cells
from companion.games.shoal.rules import GAME, MOST_SECTIONS, ShoalState
from companion.games.shoal.scoring import score
from companion.store import Store
from companion.table import Table
from tests.games.shoal.helpers import random_game

ANN = {"3,2": "angel+angel", "4,2": "empty", "3,3": "clown", "4,3": "puffer",
       "5,3": "angel"}
BEN = {"0,0": "sardine+sardine+sardine", "1,0": "tang", "0,1": "empty", "1,1": "angel"}


def fresh(goal: str = "G1", players: tuple[str, ...] = ("Ann", "Ben")) -> ShoalState:
    return GAME.new(list(players), {"goal": goal})


def tally(state: ShoalState, player: str, cells: dict[str, str]) -> ShoalState:
    return GAME.apply(state, {"type": "tally", "player": player, "cells": cells})


def test_tallied_shoals_are_scored_as_they_lie_across_every_player() -> None:
    """Comparative goals compare the tallied shoals (G1..G8: any of them may hold one)."""
    for goal in (f"G{n}" for n in range(1, 9)):
        done = tally(tally(fresh(goal), "Ben", BEN), "Ann", ANN)
        view = GAME.view(done)
        # named from each shoal's own top-left, as the camera names them
        ann = {(x - 3, y - 2): v for (x, y), v in from_cells(ANN).items()}
        ben = from_cells(BEN)
        expected = score({"Ann": ann, "Ben": ben}, done.goal)
        assert GAME.scores(done) == {p: expected[p]["total"] for p in ("Ann", "Ben")}
        assert view["shoals"]["Ann"]["cells"] == to_cells(ann)
        assert view["shoals"]["Ann"]["tallied"] and view["shoals"]["Ben"]["tallied"]
        assert view["breakdown"]["Ann"] == expected["Ann"]["breakdown"]


def test_the_game_ends_when_every_shoal_is_tallied() -> None:
    one = tally(fresh(players=("Ann", "Ben", "Cid")), "Ben", BEN)
    assert GAME.ending(one) is None
    assert GAME.current(one) == "Ann"  # the first in seat order not yet counted
    two = tally(one, "Ann", ANN)
    assert GAME.current(two) == "Cid"
    done = tally(two, "Cid", BEN)
    ending = GAME.ending(done)
    assert ending is not None and ending.termination is Termination.TALLY
    assert GAME.current(done) is None and GAME.legal(done) == []
    with pytest.raises(GameOver, match="every shoal was counted"):
        tally(done, "Ann", BEN)


def test_a_shoal_tallied_again_replaces_the_first_count() -> None:
    state = tally(tally(fresh(players=("Ann", "Ben", "Cid")), "Ann", BEN), "Ann", ANN)
    assert GAME.view(state)["shoals"]["Ann"]["fish"] == 5
    line = GAME.describe(tally(fresh(), "Ann", BEN), {"type": "tally", "player": "Ann",
                                                       "cells": ANN}, state)
    assert line == "Ann tallied the shoal again as it lies: 5 sections, 5 fish in view."


def test_no_card_is_laid_after_the_first_tally() -> None:
    state = fresh()
    card = GAME.legal(state)[0].choices["card"][0]
    laid = GAME.apply(state, {"type": "play", "card": card, "at": [0, 0]})
    counted = tally(laid, "Ben", BEN)
    with pytest.raises(BrokenRule, match="no card is laid after the first tally"):
        GAME.apply(counted, {"type": "play", "card": GAME.legal(laid)[0].choices["card"][0],
                             "at": [0, 0]})
    # what is left to do: tally the shoal with a card laid here, as it lies
    (left,) = GAME.legal(counted)
    assert left.type == "tally" and left.player == "Ann"
    done = GAME.apply(counted, {"type": "tally", "player": "Ann",
                                "cells": left.choices["cells"][0]})
    assert done.tallied["Ann"] == laid.shoals["Ann"] and GAME.ending(done) is not None


@pytest.mark.parametrize(("action", "error", "message"), [
    ({"player": "Cid", "cells": BEN}, Malformed, "one of Ann, Ben, not 'Cid'"),
    ({"cells": BEN}, Malformed, "not None"),
    ({"player": "Ann", "cells": {}}, Malformed, "Ann's shoal has no sections"),
    ({"player": "Ann", "cells": ["0,0"]}, Malformed, "cells are a JSON object"),
    ({"player": "Ann", "cells": {"0;0": "angel"}}, Malformed, "named \"x,y\""),
    ({"player": "Ann", "cells": {"0,0": "shark"}}, Malformed,
     "section 0,0 shows 'shark', which no card of this game's deck shows"),
    ({"player": "Ann", "cells": {"0,0": 7}}, Malformed, "Ann's shoal"),
    ({"player": "Ann", "cells": {"0,0": "angel", "2,0": "tang"}}, BrokenRule,
     "Ann's shoal is in pieces"),
    ({"player": "Ann", "cells": {f"{x},0": "angel" for x in range(MOST_SECTIONS + 1)}},
     BrokenRule, f"shows {MOST_SECTIONS + 1} sections, but 10 cards show {MOST_SECTIONS}"),
    ({"player": "Ann", "cells": BEN, "card": "F01"}, Malformed, "tally does not take 'card'"),
])
def test_a_bad_tally_says_why_and_changes_nothing(action: dict[str, Any],
                                                  error: type[Exception], message: str) -> None:
    state = tally(fresh(), "Ben", BEN)
    before = GAME.view(state)
    with pytest.raises(error, match=message):
        GAME.apply(state, {"type": "tally", **action})
    assert GAME.view(state) == before


def test_a_session_with_tallies_replays_and_undoes(tmp_path: Path) -> None:
    table = Table(Store(tmp_path / "t.db"))
    session = table.create("shoal", ["Ann", "Ben"], {"goal": "G3"})
    table.play(session.id, {"type": "tally", "player": "Ann", "cells": ANN})
    table.play(session.id, {"type": "tally", "player": "Ben", "cells": BEN})
    again = Table(Store(tmp_path / "t.db")).get(session.id)
    assert GAME.ending(again.state) is not None
    start = GAME.new(["Ann", "Ben"], {"goal": "G3"})
    assert GAME.view(replay(GAME, start, list(again.actions))) == GAME.view(again.state)
    table.undo(session.id)
    undone = Table(Store(tmp_path / "t.db")).get(session.id)
    assert list(undone.state.tallied) == ["Ann"] and GAME.ending(undone.state) is None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), dx=st.integers(-5, 5), dy=st.integers(-5, 5))
def test_a_laid_shoal_tallied_anywhere_scores_as_laid(seed: int, dx: int, dy: int) -> None:
    """Every section and fish of a shoal tallied, wherever its cells are named from, is
    kept: a shoal laid here and tallied as it lies scores the same."""
    state = fresh("G2")
    for action in random_game(random.Random(seed), ["Ann", "Ben"], "G2")[:-1]:
        state = GAME.apply(state, action)
    moved = {f"{x + dx},{y + dy}": v for (x, y), v in state.shoals["Ann"].items()}
    counted = tally(tally(state, "Ann", moved), "Ben", to_cells(state.shoals["Ben"]))
    assert GAME.scores(counted) == GAME.scores(state)
    assert len(counted.shoals["Ann"]) == len(state.shoals["Ann"])
