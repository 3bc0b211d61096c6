"""The engine around the placement rules: options, goal draw, legal moves, the view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.engine import BadSetup, IllegalAction, Malformed, replay
from companion.games import get
from companion.games.shoal.layout import from_cells
from companion.games.shoal.rules import GAME
from companion.games.shoal.words import where_laid
from companion.store import Store
from companion.table import Table
from tests.games.shoal.helpers import RULEBOOK


def test_registered_as_shoal() -> None:
    assert get("shoal") is GAME


@pytest.mark.parametrize(("options", "message"), [
    ({}, "choose a goal card: \"goal\" is the id of one of the deck's \\(G1, G2"),
    ({"goal": "G9"}, "the deck has no goal card 'G9'"),
    ({"goal": "G1", "rounds": 3}, "unknown option 'rounds': Shoal takes deck and goal"),
    ({"goal": "G1", "deck": "big"}, "\"deck\" is \"default\" or an inline deck object"),
    ({"goal": {"id": "x", "goals": [{"type": "each", "what": "shark", "points": 1}] * 3}},
     "no card shows a 'shark'"),
])
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(BadSetup, match=message):
        GAME.new(["Ann", "Ben"], options)


def test_a_new_session_draws_a_goal_card_and_stores_it(tmp_path: Path) -> None:
    table = Table(Store(tmp_path / "t.db"))
    session = table.create("shoal", ["Ann", "Ben", "Cid"], {})
    goal = session.options["goal"]
    assert goal in {f"G{n}" for n in range(1, 9)}
    assert session.state.goal.id == goal
    again = Table(Store(tmp_path / "t.db")).get(session.id)
    assert again.options["goal"] == goal


def test_a_chosen_goal_card_is_kept(tmp_path: Path) -> None:
    session = Table(Store(tmp_path / "t.db")).create("shoal", ["Ann", "Ben"], {"goal": "G5"})
    assert session.options == {"goal": "G5"}


def test_session_play_refuses_illegal_cards_and_stores_nothing(tmp_path: Path) -> None:
    table = Table(Store(tmp_path / "t.db"))
    session = table.create("shoal", ["Ann", "Ben"], {"goal": "G1"})
    table.play(session.id, {"type": "play", "card": "F01", "at": [0, 0]})
    with pytest.raises(IllegalAction, match="first card of a shoal goes at"):
        table.play(session.id, {"type": "play", "card": "F02", "at": [1, 0]})
    assert table.get(session.id).seq == 1


def test_the_log_says_the_card_the_cards_laid_and_the_fish_in_view() -> None:
    actions = _rulebook()
    start = GAME.new(["Ann", "Ben"], {"goal": "G1"})
    first = GAME.apply(start, actions[0])
    assert GAME.describe(start, actions[0], first) == (
        "Ann started the shoal with F22: 1 card laid, 4 fish in view.")
    before = replay(GAME, start, actions[:-1])
    end = GAME.apply(before, actions[-1])
    assert GAME.describe(before, actions[-1], end) == (
        "Ben laid F12 1 section right and 2 down from the first card: 10 cards laid, 33 "
        "fish in view. The game is over: every player has laid 10 cards.")


def test_unknown_action_type() -> None:
    state = GAME.new(["Ann", "Ben"], {"goal": "G1"})
    with pytest.raises(Malformed, match="unknown action 'draw': Shoal has play"):
        GAME.apply(state, {"type": "draw"})
    with pytest.raises(Malformed, match="play does not take 'face'"):
        GAME.apply(state, {"type": "play", "card": "F01", "at": [0, 0], "face": "up"})


def test_legal_lists_each_unplayed_card_with_the_spots_where_it_fits() -> None:
    state = GAME.new(["Ann", "Ben"], {"goal": "G1"})
    first = GAME.legal(state)
    assert len(first) == 40
    assert all(entry.player == "Ann" and entry.choices["at"] == [[0, 0]] for entry in first)
    state = GAME.apply(state, {"type": "play", "card": "F01", "at": [0, 0]})
    state = GAME.apply(state, {"type": "play", "card": "F02", "at": [0, 0]})
    later = {entry.choices["card"][0]: entry.choices["at"] for entry in GAME.legal(state)}
    assert "F01" not in later and "F02" not in later
    assert len(later) == 38
    for cid, spots in later.items():
        for x in range(-3, 3):
            for y in range(-3, 3):
                try:
                    GAME.apply(state, {"type": "play", "card": cid, "at": [x, y]})
                except IllegalAction:
                    assert [x, y] not in spots
                else:
                    assert [x, y] in spots
    over = replay(GAME, GAME.new(["Ann", "Ben"], {"goal": "G1"}), _rulebook()[:20])
    assert GAME.legal(over) == []


def _rulebook() -> list[dict[str, object]]:
    return list(json.loads(RULEBOOK.read_text("utf-8"))["actions"])


def test_view_of_a_finished_game() -> None:
    rec = json.loads(RULEBOOK.read_text("utf-8"))
    state = replay(GAME, GAME.new(rec["players"], rec["options"]), rec["actions"])
    view = GAME.view(state)
    json.dumps(view)                               # JSON-safe
    ann = view["shoals"]["Ann"]
    assert ann["cards"] == 10
    assert ann["fish"] == 37
    assert from_cells(ann["cells"]) == state.shoals["Ann"]
    assert ann["plays"][0] == {"card": "F22", "at": [0, 0]}
    assert "sardine*3" in ann["ascii"]
    assert [b["points"] for b in view["breakdown"]["Ann"]] == [4, -6, -8]
    assert view["goal"]["id"] == "G1" and len(view["goal"]["text"]) == 3
    assert len(view["played"]) == 20 and len(view["unplayed"]) == 20
    summary = GAME.summary(state)
    assert summary["over"] is True and summary["current"] is None
    assert summary["scores"]["Ann"] == 27
    assert summary["winners"] == [max(summary["scores"], key=summary["scores"].get)]


def test_the_log_says_where_a_card_went_as_a_player_would_point() -> None:
    assert where_laid("F03", 0, 0, first=True) == "started the shoal with F03"
    assert where_laid("F03", 0, 0, first=False) == "laid F03 on the first card"
    assert where_laid("F03", -2, 0, first=False) == "laid F03 2 sections left from the first card"
    assert where_laid("F03", 0, -1, first=False) == "laid F03 1 section up from the first card"
    assert where_laid("F03", 1, -3, first=False) == (
        "laid F03 1 section right and 3 up from the first card")
