"""The log in words and the score history, built incrementally and kept consistent."""

from __future__ import annotations

from companion.table import Table
from web.chronicle import Chronicle
from web.words import describe


def test_log_names_who_acted_even_out_of_turn(table: Table) -> None:
    session = table.create("poodivers", ["Ann", "Ben"])
    for action in ({"type": "flip", "cell": "A1", "face": "blank"},
                   {"type": "peek", "cell": "B1"},
                   {"type": "flip", "cell": "C1", "face": "object"},
                   {"type": "bank"}):
        table.play(session.id, action)
    view = Chronicle().view(session)
    assert [e["text"] for e in view["log"]] == [
        "Ann: flipped A1: a blank",
        "Ann: peeked at B1",            # the peek belongs to the blank's player
        "Ben: flipped C1: an object",
        "Ben: banked the turn's points",
    ]
    assert view["timeline"][-1] == {"Ann": 0, "Ben": 1}
    assert view["reason"] is None and view["seq"] == 4


def test_undo_and_new_actions_rebuild_only_the_changed_tail(table: Table) -> None:
    chronicle = Chronicle()
    session = table.create("poodivers", ["Ann", "Ben"])
    table.play(session.id, {"type": "flip", "cell": "A1", "face": "object"})
    table.play(session.id, {"type": "bank"})
    first = chronicle.view(session)
    table.undo(session.id)
    table.play(session.id, {"type": "flip", "cell": "B1", "face": "object"})
    again = chronicle.view(session)
    assert first["log"][0] == again["log"][0]
    assert again["log"][1]["text"] == "Ann: flipped B1: an object"
    assert again["state"]["turn_points"] == 3 and again["seq"] == 2
    live = chronicle.view(session, full=False)
    assert "log" not in live and live["last"]["seq"] == 2


def test_words_for_every_game_and_unknown_actions() -> None:
    assert describe("shark", {"type": "buy", "company": "red", "count": 2}, "Ann") == \
        "Ann: bought 2 red"
    assert describe("shark", {"type": "roll"}, None) == "rolled the dice"
    assert describe("shoal", {"type": "play", "card": "F01", "at": [1, 0]}, "Cid") == \
        "Cid: played F01 at 1,0"
    assert describe("drshark", {"type": "fistful", "clues": ["a", "b"]}, "Ben") == \
        "Ben: grabbed a fistful: a, b"
    assert describe("poodivers", {"type": "swim", "far": 3}, "Ann") == "Ann: swim (far 3)"
