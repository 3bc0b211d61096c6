"""The log in words and the score history, built incrementally and kept consistent."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from companion.table import Table
from web.chronicle import Chronicle


def test_log_names_who_acted_even_out_of_turn(table: Table) -> None:
    session = table.create("poodivers", ["Ann", "Ben"])
    for action in ({"type": "flip", "cell": "A1", "face": "blank"},
                   {"type": "peek", "cell": "B1"},
                   {"type": "flip", "cell": "C1", "face": "object"},
                   {"type": "bank"}):
        table.play(session.id, action)
    view = Chronicle().view(session)
    assert [e["text"] for e in view["log"]] == [
        "Ann flipped A1: a blank; the turn passes.",
        "Ann peeked at B1.",            # the peek belongs to the blank's player
        "Ben flipped C1: an object worth 1 point.",
        "Ben banked 1 point (1 brown turd).",
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
    assert again["log"][1]["text"] == ("Ann flipped B1: an object, the 2nd of the dive, "
                                       "worth 2 points.")
    assert again["state"]["turn_points"] == 3 and again["seq"] == 2
    live = chronicle.view(session, full=False)
    assert "log" not in live and live["last"]["seq"] == 2


def test_the_log_is_each_games_describe_and_shark_charts_its_prices(table: Table) -> None:
    session = table.create("shark", ["Ann", "Ben"])
    for action in ({"type": "choose_stock", "company": "red"},
                   {"type": "choose_stock", "company": "blue"},
                   {"type": "roll", "company": "red", "area": "6"},
                   {"type": "place", "cell": "J12"}):
        table.play(session.id, action)
    view = Chronicle().view(session)
    assert view["log"][-1]["text"] == ("Ann built a red building at J12: red rises to "
                                       "$1,000; Ann earns a $1,000 bonus. The bank pays Ann "
                                       "a $1,000 dividend (1 red share \u00d7 $1,000).")
    assert view["series"][0] == {"prices": {"red": 0, "blue": 0, "green": 0, "yellow": 0}}
    assert view["series"][-1]["prices"]["red"] == 1000
    assert view["log"][-1]["series"] == view["series"][-1]
    # the money of the move with the banker's reasons (the building left unsaid)
    assert view["log"][-1]["paid"] == [
        {"player": "Ann", "kind": "bonus", "amount": 1000,
         "why": "bonus for a lone building at J12: red's new price (up from $0)"},
        {"player": "Ann", "kind": "dividend", "amount": 1000,
         "why": "dividend, as red's price rose from $0 to $1,000: 1 share \u00d7 $1,000"}]
    assert "paid" not in view["log"][0]


def test_a_long_fold_of_one_game_does_not_hold_up_another(table: Table) -> None:
    """Each session folds under its own lock: while one game's log is being worked out
    (here held inside its words), another game's view is built at once."""
    slow = table.create("poodivers", ["Ann", "Ben"])
    quick = table.create("poodivers", ["Cy", "Dee"])
    for sid in (slow.id, quick.id):
        table.play(sid, {"type": "flip", "cell": "A1", "face": "object"})
    inside, release = threading.Event(), threading.Event()

    class Held(type(slow.game)):  # type: ignore[misc]  # the same rules, slow words
        def describe(self, before: Any, action: Any, after: Any) -> str:
            inside.set()
            assert release.wait(10)
            return str(super().describe(before, action, after))

    chronicle = Chronicle()
    held: list[dict[str, Any]] = []
    folding = threading.Thread(
        target=lambda: held.append(chronicle.view(replace(slow, game=Held()))))
    folding.start()
    try:
        assert inside.wait(5)
        done = threading.Event()

        def view_quick() -> None:
            chronicle.view(quick)
            done.set()

        threading.Thread(target=view_quick).start()
        assert done.wait(5), "the other game waited for this game's fold"
        assert folding.is_alive()          # still folding the slow game
    finally:
        release.set()
        folding.join(5)
    assert held[0]["log"][0]["text"] == "Ann flipped A1: an object worth 1 point."
    again = chronicle.view(slow)           # the same session, its steps kept
    assert again["log"] == held[0]["log"] and again["seq"] == 1
