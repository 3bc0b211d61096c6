"""Live change events are light: a patch on the session's previous event, a few KB at
most for every game, the parts that never change (Dr. Shark's catalogue, the boards,
Shoal's cards) sent once per page; a page that applies them has exactly the view."""

from __future__ import annotations

import json
import queue
import random
from pathlib import Path
from typing import Any

import pytest

from companion.engine import IllegalAction
from companion.store import Store
from companion.table import Table
from web import chronicle as chronicle_module
from web.chronicle import Chronicle
from web.live import Broker, Message, light, patched

PLAYERS = ["Ann", "Ben", "Cy", "Dee"]
STATIC = {"drshark": ["catalogue", "board"], "shark": ["layout"], "poodivers": ["layout"],
          "shoal": ["cards", "goal"]}
"""Parts of each game's state that stay the same all game long."""
MAX_EVENT = {"drshark": 4096, "shark": 4096, "poodivers": 4096, "shoal": 6 * 1024}
"""The goal is 4 KB. Shoal's is the next player's placements for every card in hand, new
each turn (another player's shoal): up to about 5 KB in a game of four."""


def pick(legal: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    entry = rnd.choice(legal)
    action: dict[str, Any] = {"type": entry["type"]}
    for key, values in (entry.get("choices") or {}).items():
        if values:
            action[key] = rnd.choice(list(values))
    return action


def play(table: Table, sid: int, rnd: random.Random, moves: int) -> None:
    """Up to ``moves`` legal actions, an undo now and then (a change too, and the way
    on when a pick ended the game)."""
    for _ in range(moves * 20):
        session = table.get(sid)
        if moves == 0:
            return
        if session.seq and (session.game.is_over(session.state) or rnd.random() < 0.1):
            table.undo(sid)
            moves -= 1
            continue
        # no Dr. Shark tally: it would end the game at once (its choice is the dossiers
        # as they stand, so it is always a legal pick)
        legal = [o.to_json() for o in session.game.legal(session.state) if o.type != "tally"]
        try:
            table.play(sid, pick(legal, rnd))
        except IllegalAction:
            continue
        moves -= 1


def drain(q: queue.SimpleQueue[Message]) -> list[dict[str, Any]]:
    out = []
    while not q.empty():
        kind, _, data = q.get()
        if kind == "change":
            out.append(json.loads(data))
    return out


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(Store(tmp_path / "live.db"))


@pytest.mark.parametrize("game", sorted(STATIC))
def test_a_page_patched_by_every_event_has_the_view(table: Table, game: str) -> None:
    chronicle = Chronicle()
    broker = Broker(table, chronicle)
    sid = table.create(game, PLAYERS, {}, seed=3).id
    q = broker.follow(sid)
    page = json.loads(json.dumps(chronicle.view(table.get(sid), full=False)))  # on load
    rnd = random.Random(3)
    for _ in range(12):
        play(table, sid, rnd, 5)
        events = drain(q)
        for event in events:
            page = patched(page, event)
        want = json.loads(json.dumps(chronicle.view(table.get(sid), full=False)))
        assert page == want
        assert json.dumps(page) == json.dumps(want)     # keys in order too: pages draw
        # some choices in the order of their keys (Shark's buildings to place)


@pytest.mark.parametrize("game", sorted(STATIC))
def test_events_are_a_few_kb_and_static_parts_never_go(table: Table, game: str) -> None:
    broker = Broker(table, Chronicle())
    sid = table.create(game, PLAYERS, {}, seed=11).id
    q = broker.follow(sid)
    play(table, sid, random.Random(11), 150)
    events = drain(q)
    assert len(events) > 20
    for event in events:       # the first too: the page has the static parts already
        size = len(json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode())
        assert size <= MAX_EVENT[game], f"a {game} change event of {size} bytes"
        assert event["patch"] is True
        assert not [key for key in STATIC[game] if key in event.get("state", {})]


def test_shoal_events_leave_out_the_text_pictures(table: Table) -> None:
    """No page draws a shoal's text picture (``ascii``, for the command line): live
    events and the answers to taps leave it out, the whole view keeps it."""
    chronicle = Chronicle()
    broker = Broker(table, chronicle)
    sid = table.create("shoal", PLAYERS, {}, seed=4).id
    q = broker.follow(sid)
    play(table, sid, random.Random(4), 12)
    events = drain(q)
    assert events and not ['"ascii"' in json.dumps(e) for e in events].count(True)
    light_view = chronicle.view(table.get(sid), full=False)
    assert not [p for p, s in light_view["state"]["shoals"].items() if "ascii" in s]
    whole = chronicle.view(table.get(sid))
    assert all(s["ascii"] for s in whole["state"]["shoals"].values())
    assert not [p for p in PLAYERS if "ascii" not in table.get(sid).game.view(
        table.get(sid).state)["shoals"][p]]      # the engine's view is untouched


def test_each_patch_names_the_event_it_patches(table: Table) -> None:
    broker = Broker(table, Chronicle())
    sid = table.create("poodivers", PLAYERS, {}, seed=2).id
    q = broker.follow(sid)
    before = broker.event_id(sid)
    play(table, sid, random.Random(2), 10)
    while not q.empty():
        kind, eid, data = q.get()
        if kind == "change":
            assert json.loads(data)["on"] == before
            before = eid


def test_the_next_page_to_open_a_game_gets_light_events(table: Table) -> None:
    """A game played with no page open (or after the last one closed): the first change
    a new page hears of is a patch too, not the whole game with its catalogue."""
    chronicle = Chronicle()
    broker = Broker(table, chronicle)
    sid = table.create("drshark", PLAYERS, {}, seed=5).id
    rnd = random.Random(5)
    play(table, sid, rnd, 10)
    for _ in range(2):
        page = json.loads(json.dumps(chronicle.view(table.get(sid), full=False)))
        q = broker.follow(sid)
        play(table, sid, rnd, 10)
        events = drain(q)
        assert events and all(e["patch"] and "catalogue" not in e.get("state", {})
                              for e in events)
        for event in events:
            page = patched(page, event)
        assert page == json.loads(json.dumps(chronicle.view(table.get(sid), full=False)))
        broker.unfollow(sid, q)
        play(table, sid, rnd, 5)        # nobody follows meanwhile


def test_a_drawn_clue_leaves_the_bag_as_an_edit(table: Table) -> None:
    chronicle = Chronicle()
    broker = Broker(table, chronicle)
    sid = table.create("drshark", ["Ann", "Ben"], {}, seed=1).id
    table.play(sid, {"type": "move", "space": "A-light"})
    table.play(sid, {"type": "start_search"})
    page = json.loads(json.dumps(chronicle.view(table.get(sid), full=False)))
    q = broker.follow(sid)
    clue = page["state"]["bag"][7]
    table.play(sid, {"type": "draw", "clue": clue})
    (event,) = drain(q)
    assert "bag" not in event["state"] and "legal" not in event
    assert ["splice", ["state", "bag"], 7, 1, []] in event["edits"]
    assert len(json.dumps(event)) < 1024
    assert patched(page, event) == json.loads(json.dumps(
        chronicle.view(table.get(sid), full=False)))


def test_a_light_view_is_built_once_per_change(table: Table) -> None:
    """The live event of a change and the answer to the tap that made it are one view."""
    chronicle = Chronicle()
    sid = table.create("shoal", PLAYERS, {}, seed=1).id
    first = chronicle.view(table.get(sid), full=False)
    assert chronicle.view(table.get(sid), full=False) is first
    option = first["legal"][0]
    table.play(sid, {"type": "play", "card": option["choices"]["card"][0],
                     "at": option["choices"]["at"][0]})
    after = chronicle.view(table.get(sid), full=False)
    assert after is not first and after["seq"] == 1
    assert chronicle.view(table.get(sid), full=False) is after
    table.undo(sid)
    assert chronicle.view(table.get(sid), full=False)["seq"] == 0


def test_an_event_names_what_went_away() -> None:
    before = {"id": 1, "seq": 2, "state": {"a": {"x": 1, "y": 2}, "b": 1}, "old": True}
    after = {"id": 1, "seq": 3, "state": {"a": {"x": 1}, "b": 1}}
    event = json.loads(json.dumps(light(after, before)))
    assert event == {"id": 1, "seq": 3, "patch": True,
                     "gone": [["old"], ["state", "a", "y"]]}
    assert patched(before, event) == after


def test_lists_are_sent_as_their_edits() -> None:
    cells = [f"{c}{r}" for r in range(1, 9) for c in "ABCDEFGH"]
    before: dict[str, Any] = {"id": 1, "seq": 2, "deep": {"a": {"b": list(range(30))}},
              "legal": [{"type": "flip", "choices": {"cell": cells}, "player": "Ann"}]}
    after: dict[str, Any] = {"id": 1, "seq": 3,
             "legal": [{"type": "peek", "choices": {"cell": ["C3"]}, "player": "Ann"},
                       {"type": "flip", "choices": {"cell": cells[:20] + cells[21:]},
                        "player": "Ben"}],
             "deep": {"a": {"b": list(range(31))}}}
    event = json.loads(json.dumps(light(after, before)))
    assert "legal" not in event and "deep" not in event
    assert event["edits"] == [
        ["splice", ["legal"], 0, 0, [after["legal"][0]]],
        ["splice", ["legal", 1, "choices", "cell"], 20, 1, []],
        ["set", ["legal", 1, "player"], "Ben"],
        ["splice", ["deep", "a", "b"], 30, 0, [30]]]
    assert patched(before, event) == after
    assert before["legal"][0]["choices"]["cell"] == cells      # the old view untouched
    nothing = light(after, after)
    assert nothing is after        # no change at all: the whole view, sure to be right



def test_the_chronicle_keeps_the_games_touched_last(table: Table,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chronicle_module, "MAX_SESSIONS", 2)
    chronicle = Chronicle()
    sessions = [table.create("poodivers", PLAYERS[:2]) for _ in range(4)]
    views = [chronicle.view(s) for s in sessions]
    assert list(chronicle._traces) == [sessions[2].id, sessions[3].id]
    assert chronicle.view(sessions[0]) == views[0]       # built again from the log
