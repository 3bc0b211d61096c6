"""Deck files: the default deck, loading from files and folders, clear errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from companion.engine import BadSetup
from companion.games.shoal.deck import GOAL_TYPES, BadDeck, load_deck, parse_goal_card
from companion.games.shoal.rules import GAME

DEFAULT = Path(__file__).parents[3] / "companion" / "games" / "shoal" / "default" / "deck.json"


def small_deck() -> dict[str, Any]:
    return {
        "section_mm": [40, 30],
        "cards": [{"id": "F01", "sections": [["angel", "empty"], ["clown", "clown+puffer"]],
                   "image": "F01.png"},
                  {"id": "F02", "sections": [["tang", "tang"], ["empty", "empty"]]}],
        "goals": [{"id": "G1", "goals": [
            {"type": "each", "what": "puffer", "points": 2},
            {"type": "largest", "what": "empty", "points": -6},
            {"type": "total", "what": "angel", "thresholds": [[4, 6], [8, 12], [10, -8]]}]}],
    }


def test_default_deck_has_40_cards_and_8_goal_cards() -> None:
    deck = load_deck("default")
    assert len(deck.cards) == 40
    assert len(deck.goals) == 8
    assert all(len(c.sections) == 2 and all(len(r) == 2 for r in c.sections)
               for c in deck.cards.values())
    assert set(deck.kinds) == {"angel", "clown", "puffer", "tang", "sardine"}
    used = {g.type for card in deck.goals.values() for g in card.goals}
    assert used == set(GOAL_TYPES)
    assert deck.cards["F01"].id == "F01"
    assert deck.goals["G1"].goals[2].thresholds == ((4, 6), (8, 12), (10, -8))


def test_default_deck_round_trips_through_its_json() -> None:
    deck = load_deck("default")
    assert deck.to_json() == json.loads(DEFAULT.read_text("utf-8"))


def test_load_from_file_and_folder_resolves_images(tmp_path: Path) -> None:
    (tmp_path / "deck.json").write_text(json.dumps(small_deck()), encoding="utf-8")
    for source in (tmp_path, tmp_path / "deck.json", str(tmp_path)):
        deck = load_deck(source)
        assert list(deck.cards) == ["F01", "F02"]
        assert deck.cards["F01"].image == tmp_path / "F01.png"
        assert deck.cards["F02"].image is None
        assert deck.section_mm == (40.0, 30.0)
        assert deck.kinds == ("angel", "clown", "puffer", "tang")


def test_inline_deck_and_goal_card_in_the_options() -> None:
    state = GAME.new(["Ann", "Ben"], {"deck": _padded(small_deck()), "goal": "G1"})
    assert state.goal.id == "G1"
    inline_goal = {"id": "mine", "goals": [{"type": "tallest", "points": 3},
                                           {"type": "widest", "points": 3},
                                           {"type": "fewest", "what": "tang", "points": 1}]}
    state = GAME.new(["Ann", "Ben"], {"goal": inline_goal})
    assert GAME.view(state)["goal"]["id"] == "mine"


def _padded(deck: dict[str, Any]) -> dict[str, Any]:
    deck = copy.deepcopy(deck)
    deck["cards"] += [{"id": f"X{n}", "sections": [["tang", "tang"], ["tang", "tang"]]}
                      for n in range(20)]
    return deck


def broken(change: str) -> dict[str, Any]:
    deck = small_deck()
    card, goals = deck["cards"][0], deck["goals"][0]["goals"]
    if change == "three rows":
        card["sections"] = [["angel", "angel"], ["angel", "angel"], ["angel", "angel"]]
    elif change == "three columns":
        card["sections"] = [["angel", "angel", "angel"], ["angel", "angel", "angel"]]
    elif change == "flat":
        card["sections"] = ["angel", "angel", "angel", "angel"]
    elif change == "bad section":
        card["sections"][0][0] = "Angel Fish"
    elif change == "goal type":
        goals[0]["type"] = "most"
    elif change == "thresholds down":
        goals[2]["thresholds"] = [[4, 6], [3, 12]]
    elif change == "thresholds equal":
        goals[2]["thresholds"] = [[4, 6], [4, 12]]
    elif change == "unknown kind":
        goals[0]["what"] = "shark"
    elif change == "two goals":
        del goals[2]
    elif change == "duplicate card":
        deck["cards"][1]["id"] = "F01"
    elif change == "missing points":
        del goals[0]["points"]
    elif change == "extra field":
        goals[0]["length"] = 3
    elif change == "fraction":
        goals[0]["points"] = 1.5
    return deck


@pytest.mark.parametrize(("change", "message"), [
    ("three rows", "card F01 is not 2x2"),
    ("three columns", "card F01 is not 2x2"),
    ("flat", "card F01 is not 2x2"),
    ("bad section", "card F01: a section is \"empty\" or fish like"),
    ("goal type", "goal card G1, goal 1: unknown goal type 'most'"),
    ("thresholds down", "thresholds must be increasing: 3 comes after 4"),
    ("thresholds equal", "thresholds must be increasing: 4 comes after 4"),
    ("unknown kind", "no card shows a 'shark'"),
    ("two goals", "goal card G1 must have 3 goals"),
    ("duplicate card", "two cards are called 'F01'"),
    ("missing points", "the each goal needs 'points'"),
    ("extra field", "the each goal has no 'length'"),
    ("fraction", "points must be a whole number, not 1.5"),
])
def test_bad_decks_are_refused_with_a_clear_message(change: str, message: str) -> None:
    with pytest.raises(BadDeck, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_deck(broken(change))
    assert issubclass(BadDeck, ValueError)


def test_bad_inline_deck_is_a_bad_setup() -> None:
    with pytest.raises(BadSetup, match="card F01 is not 2x2"):
        GAME.new(["Ann", "Ben"], {"deck": broken("three rows"), "goal": "G1"})


def test_unreadable_deck_files(tmp_path: Path) -> None:
    with pytest.raises(BadDeck, match="cannot read the deck"):
        load_deck(tmp_path / "nowhere.json")
    with pytest.raises(BadDeck, match=r"cannot read the deck .*deck\.json"):
        load_deck(tmp_path)
    (tmp_path / "deck.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(BadDeck, match="is not JSON"):
        load_deck(tmp_path)


def test_goal_card_ids_and_inline_goals() -> None:
    deck = load_deck()
    assert deck.goal_card("G3").id == "G3"
    with pytest.raises(BadDeck, match="the deck has no goal card 'G9'"):
        deck.goal_card("G9")
    inline = parse_goal_card({"goals": [{"type": "widest", "points": 1}] * 3})
    assert inline.id == "inline"
