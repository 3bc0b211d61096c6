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
MAX_EVENT = 8 * 1024
"""'A few KB': Shoal's legal placements alone are up to about 5 KB."""


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


@pytest.mark.parametrize("game", sorted(STATIC))
def test_events_are_a_few_kb_and_static_parts_go_once(table: Table, game: str) -> None:
    broker = Broker(table, Chronicle())
    sid = table.create(game, PLAYERS, {}, seed=11).id
    q = broker.follow(sid)
    play(table, sid, random.Random(11), 150)
    first, *rest = drain(q)
    assert all(key in first["state"] for key in STATIC[game])   # the first one is whole
    assert len(rest) > 20
    for event in rest:
        size = len(json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode())
        assert size <= MAX_EVENT, f"a {game} change event of {size} bytes"
        assert event["patch"] is True
        assert not [key for key in STATIC[game] if key in event.get("state", {})]


def test_an_event_names_what_went_away() -> None:
    before = {"id": 1, "seq": 2, "state": {"a": {"x": 1, "y": 2}, "b": 1}, "old": True}
    after = {"id": 1, "seq": 3, "state": {"a": {"x": 1}, "b": 1}}
    event = json.loads(json.dumps(light(after, before)))
    assert event == {"id": 1, "seq": 3, "state": {"a": {}}, "patch": True,
                     "gone": [["old"], ["state", "a", "y"]]}
    assert patched(before, event) == after



def test_the_chronicle_keeps_the_games_touched_last(table: Table,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chronicle_module, "MAX_SESSIONS", 2)
    chronicle = Chronicle()
    sessions = [table.create("poodivers", PLAYERS[:2]) for _ in range(4)]
    views = [chronicle.view(s) for s in sessions]
    assert list(chronicle._traces) == [sessions[2].id, sessions[3].id]
    assert chronicle.view(sessions[0]) == views[0]       # built again from the log
