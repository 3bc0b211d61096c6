"""The board and the clue catalogue as data: the defaults and inline replacements."""

from __future__ import annotations

import copy
import json
from collections import Counter
from importlib import resources
from typing import Any

import pytest

from companion.engine import BadSetup, IllegalAction
from companion.games.drshark import GAME
from companion.games.drshark import catalogue as catalogues
from tests.games.drshark.helpers import PAIR, play

SMALL = {
    "evidence": {
        "watch": {"category": "gadgets", "points": 7, "parts": ["a", "b"],
                  "service": "babanipoulos"},
        "map": {"category": "maps", "points": 10, "parts": ["a", "b"], "service": None},
    },
    "clues": [
        {"id": "watch-1a", "evidence": "watch", "part": "a", "shape": "round",
         "category": "gadgets"},
        {"id": "watch-1b", "evidence": "watch", "part": "b", "shape": "star",
         "category": "gadgets"},
        {"id": "map-1a", "evidence": "map", "part": "a", "shape": "round", "category": "maps"},
        {"id": "map-1b", "evidence": "map", "part": "b", "shape": "moon", "category": "maps"},
        {"id": "shark-1", "shark": True, "shape": "star", "category": "maps"},
    ],
}
BOARD: dict[str, Any] = {"spaces": [{"id": "X1", "area": "X", "dark": False},
                                    {"id": "Y1", "area": "Y", "dark": False},
                                    {"id": "Z1", "area": "Z", "dark": False},
                                    {"id": "Z2", "area": "Z", "dark": True}],
                         "methods": {"X": "same", "Y": "fistful", "Z": "observation"}}


def test_default_board_has_five_areas_and_nine_spaces() -> None:
    state = GAME.new(PAIR, {})
    board = GAME.view(state)["board"]
    assert board["methods"] == {"A": "shape", "B": "different", "C": "same", "D": "fistful",
                                "E": "observation"}
    assert len(board["spaces"]) == 9
    assert [s["id"] for s in board["spaces"] if s["dark"]] == ["A-dark", "B-dark", "C-dark",
                                                              "D-dark"]


def test_default_catalogue_has_five_categories_with_colour_texture_and_points() -> None:
    cat = catalogues.default()
    assert {c: (v.points, v.service) for c, v in cat.categories.items()} == {
        "documents": (12, None), "maps": (10, None), "disguises": (8, None),
        "gadgets": (7, "babanipoulos"), "weapons": (7, "paoletta")}
    assert all(c.colour and c.texture for c in cat.categories.values())
    assert len({c.colour for c in cat.categories.values()}) == 5
    sharks = [c for c in cat.clues.values() if c.shark]
    assert sorted(c.category for c in sharks) == sorted(cat.categories)
    assert cat.copies("watch") == 3
    counts = Counter((c.evidence, c.part) for c in cat.clues.values() if not c.shark)
    assert set(counts.values()) == {3}


def test_the_explicit_form_of_the_default_reads_back_the_same() -> None:
    cat = catalogues.default()
    assert catalogues.load(json.loads(json.dumps(cat.to_json()))) == cat


def test_the_default_file_is_what_the_game_loads() -> None:
    text = resources.files("companion.games.drshark").joinpath("catalogue.json").read_text()
    assert catalogues.load(json.loads(text)) == GAME.new(PAIR, {}).catalogue


def test_an_inline_catalogue_and_board_are_played() -> None:
    state = GAME.new(PAIR, {"catalogue": SMALL, "board": BOARD})
    assert state.bag == {"watch-1a", "watch-1b", "map-1a", "map-1b", "shark-1"}
    with pytest.raises(IllegalAction, match="dark space"):
        GAME.apply(state, {"type": "move", "space": "Z2"})
    state = play(state, {"type": "move", "space": "X1"}, {"type": "start_search"},
                 {"type": "draw", "clue": "watch-1a"}, {"type": "draw", "clue": "watch-1b"},
                 {"type": "draw", "clue": "map-1a"})
    assert state.search.ended == "mistake"
    state = play(state, {"type": "form", "evidence": "watch",
                         "clues": ["watch-1a", "watch-1b"]})
    assert state.service == "babanipoulos" and GAME.scores(state) == {"Ann": 7, "Ben": 0}


def test_the_compact_form_generates_copies_and_sharks() -> None:
    cat = catalogues.load({
        "categories": {"maps": {"points": 10}, "gadgets": {"points": 7,
                                                            "service": "paoletta"}},
        "evidence": {"map": {"category": "maps", "copies": 2,
                             "shapes": {"a": "round", "b": "star"}}},
        "sharks": [{"shape": "star", "category": "gadgets"}]})
    assert list(cat.clues) == ["map-1a", "map-1b", "map-2a", "map-2b", "shark-1"]
    assert cat.evidence["map"].points == 10 and cat.clue("shark-1").shark


def broken(path: list, value: object) -> dict:
    data = copy.deepcopy(SMALL)
    target: dict = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize("catalogue,message", [
    ("deluxe", "\"default\" or an object"),
    ({"clues": []}, "\"evidence\" must be an object"),
    (broken(["evidence", "watch", "points"], KeyError), "'watch' has no points"),
    (broken(["evidence", "watch", "points"], -1), "whole number of points"),
    (broken(["evidence", "watch", "service"], "q"), "\"paoletta\", \"babanipoulos\" or null"),
    (broken(["evidence", "watch", "parts"], ["a", "a"]), "different part names"),
    (broken(["clues", 1, "id"], "watch-1a"), "two clues have the id 'watch-1a'"),
    (broken(["clues", 0, "evidence"], "rocket"), "'rocket', which is not in"),
    (broken(["clues", 0, "part"], "z"), "part 'z', but 'watch' has parts a, b"),
    (broken(["clues", 0, "category"], "maps"), "its evidence 'watch' is 'gadgets'"),
    (broken(["clues", 3, "part"], "a"), "no clue is part 'b' of 'map'"),
    (broken(["clues", 4, "category"], "weapons"), "shark 'shark-1' has category"),
    (broken(["clues", 2, "shape"], ""), "shape must be a non-empty string"),
    ({"evidence": {"map": {"category": "maps", "points": 1, "shapes": {"a": "round"}}}},
     "needs \"copies\""),
    ({"evidence": {"map": {"category": "maps", "points": 1, "parts": ["a"], "copies": 1,
                           "shapes": {"b": "round"}}}}, "needs \"shapes\""),
])
def test_bad_catalogues_are_refused_clearly(catalogue: object, message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        GAME.new(PAIR, {"catalogue": catalogue})


@pytest.mark.parametrize("board,message", [
    ("pool", "\"default\" or an object"),
    ({"spaces": BOARD["spaces"], "methods": {"X": "smell"}}, "method 'smell'"),
    ({"spaces": [], "methods": BOARD["methods"]}, "list of"),
    ({"spaces": [*BOARD["spaces"], {"id": "X1", "area": "X"}], "methods": BOARD["methods"]},
     "two spaces are called 'X1'"),
    ({"spaces": [{"id": "Q", "area": "Q"}], "methods": BOARD["methods"]}, "area 'Q'"),
    ({"spaces": BOARD["spaces"][:1], "methods": BOARD["methods"]}, "area 'Y' has a method"),
    ({"spaces": [{"id": "X1", "area": "X", "dark": "no"}], "methods": {"X": "same"}},
     "true or false"),
    ({"spaces": BOARD["spaces"][:2], "methods": {"X": "same", "Y": "fistful"}},
     "2 players need at least 3 usable spaces"),
])
def test_bad_boards_are_refused_clearly(board: object, message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        GAME.new(PAIR, {"board": board})


def test_a_board_too_small_for_the_players_is_refused() -> None:
    with pytest.raises(BadSetup, match="4 players need at least 6"):
        GAME.new(["A", "B", "C", "D"], {"board": BOARD})
