"""The timer routes on the real table timer (browser backend, a clock the test moves):
START and STOP become Dr. Shark actions, expiry logs ``time_up``, pages hear it live."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.hardware import FakeClock, open_timer
from companion.table import Table
from tests.support.events import read_events
from tests.web.conftest import PIN
from web.app import create_app

WRITE = {"X-Table-Pin": PIN}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def timed_app(table: Table, clock: FakeClock) -> Iterator[Flask]:
    timer = open_timer("browser", table, {}, clock=clock)
    yield create_app(table, {"TABLE_PIN": PIN, "SECRET_KEY": "t", "TIMER": timer,
                             "TIMER_SPEC": "browser", "SSE_KEEPALIVE": 0.05})
    timer.close()


@pytest.fixture
def timed(timed_app: Flask) -> FlaskClient:
    return timed_app.test_client()


def test_start_needs_a_dr_shark_game(timed: FlaskClient) -> None:
    status = timed.get("/api/timer").get_json()
    assert status["state"] == "idle" and status["backend"] == "browser"
    assert status["duration_ms"] == 30_000
    res = timed.post("/api/timer/start", headers=WRITE)
    assert res.status_code == 409 and "no Dr. Shark game" in res.get_json()["error"]
    assert res.get_json()["timer"]["state"] == "idle"


def test_start_stop_and_expiry_are_logged(timed: FlaskClient, clock: FakeClock) -> None:
    game = timed.post("/api/games", headers=WRITE,
                      json={"game": "drshark", "players": ["Ann", "Ben"]}).get_json()
    sid = game["id"]
    res = timed.get(f"/api/games/{sid}/events", buffered=False)
    stream = iter(res.response)
    first = read_events(stream, 2)
    assert [e[0] for e in first] == ["change", "timer"] and first[1][2]["state"] == "idle"

    started = timed.post("/api/timer/start", headers=WRITE)
    assert started.status_code == 200 and started.get_json()["state"] == "running"
    view = timed.get(f"/api/games/{sid}").get_json()
    assert [e["action"]["type"] for e in view["log"]] == ["start_search"]
    again = timed.post("/api/timer/start", headers=WRITE)   # ignored while running
    assert again.status_code == 200
    assert timed.get(f"/api/games/{sid}").get_json()["seq"] == 1

    stopped = timed.post("/api/timer/stop", headers=WRITE)
    assert stopped.status_code == 200
    assert timed.get(f"/api/games/{sid}").get_json()["log"][-1]["text"].startswith(
        "Ann stopped the search")
    refused = timed.post("/api/timer/stop", headers=WRITE)   # no search to stop
    assert refused.status_code == 400 and refused.get_json()["kind"] == "rule"
    assert refused.get_json()["timer"]["state"] == "stopped"
    assert timed.get(f"/api/games/{sid}").get_json()["seq"] == 2

    # Ben's turn: the clock runs out and the timer logs time_up by itself.
    timed.post(f"/api/games/{sid}/actions", headers=WRITE,
               json={"action": {"type": "end_turn"}})
    timed.post("/api/timer/start", headers=WRITE)
    clock.advance(31)
    seen: list[tuple[str, str, dict[str, Any]]] = []
    for event in iter(lambda: read_events(stream, 1)[0], None):
        seen.append(event)
        if event[0] == "change" and (event[2].get("last") or {}).get("action", {}).get(
                "type") == "time_up":
            break
        assert len(seen) < 50, seen
    assert seen[-1][2]["last"]["text"].startswith("Ben ran out of time")
    # The pages also hear the timer expire (that is when the browser claps).
    while not any(e[0] == "timer" and e[2]["state"] == "expired" for e in seen):
        seen.extend(read_events(stream, 1))
        assert len(seen) < 50, seen
    assert "running" in [e[2]["state"] for e in seen if e[0] == "timer"]
    res.close()


def new_drshark(client: FlaskClient) -> int:
    res = client.post("/api/games", headers=WRITE,
                      json={"game": "drshark", "players": ["Ann", "Ben"]})
    return int(res.get_json()["id"])


def test_each_page_starts_its_own_game_and_can_take_the_timer(
        timed: FlaskClient, clock: FakeClock) -> None:
    first, second = new_drshark(timed), new_drshark(timed)
    assert timed.get("/api/timer").get_json()["game"] == second  # the new game, idle
    started = timed.post("/api/timer/start", headers=WRITE, json={"game": first})
    assert started.status_code == 200
    assert started.get_json() | {"device": None} == started.get_json() | {
        "game": first, "state": "running", "device": None}
    assert timed.get(f"/api/games/{first}").get_json()["seq"] == 1
    assert timed.get(f"/api/games/{second}").get_json()["seq"] == 0
    clock.advance(5)
    moved = timed.post("/api/timer/bind", headers=WRITE, json={"game": second})
    assert moved.status_code == 200 and moved.get_json()["game"] == second
    assert moved.get_json()["state"] == "idle"  # the second game is not searching
    back = timed.post("/api/timer/bind", headers=WRITE, json={"game": first})
    assert back.get_json()["state"] == "running" and back.get_json()["ms_left"] == 25000


def test_binding_refuses_bad_bodies_and_games(timed: FlaskClient) -> None:
    sid = new_drshark(timed)
    shark = timed.post("/api/games", headers=WRITE,
                       json={"game": "shark", "players": ["Ann", "Ben", "Cy"]}).get_json()
    for body, status, words in [
        ({"game": "one"}, 400, "game id"), ({}, 400, "missing field 'game'"),
        ({"game": sid, "seat": 2}, 400, "unexpected field 'seat'"),
        ({"game": shark["id"]}, 409, "not Dr. Shark"), ({"game": 999}, 409, "no game 999"),
    ]:
        res = timed.post("/api/timer/bind", headers=WRITE, json=body)
        assert res.status_code == status and words in res.get_json()["error"], body
    res = timed.post("/api/timer/start", headers=WRITE, json={"game": True})
    assert res.status_code == 400
    assert timed.post("/api/timer/bind", json={"game": sid}).status_code in (401, 403)
    assert timed.get("/api/timer").get_json()["game"] == sid
