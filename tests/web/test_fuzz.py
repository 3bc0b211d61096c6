"""Fuzzing every route of the dashboard (hypothesis, Flask's test client): random JSON
bodies, wrong types, huge numbers, unknown ids, bad content types and bad PINs. Every
refusal is a JSON 4xx with a message (never a 500, never an HTML page) and leaves every
game exactly as it was (the store's sessions and action logs compared before/after)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import IllegalAction
from companion.store import Store
from companion.table import Table
from tests.web.conftest import PIN
from tests.web.scripted import GAMES, PLAYERS, choose
from web import auth
from web.app import create_app
from web.commands import open_timer

ROUTES: list[tuple[str, str]] = [
    ("GET", "/"), ("GET", "/games/{id}"), ("GET", "/qr.svg"), ("GET", "/healthz"),
    ("GET", "/api/pin"), ("POST", "/api/pin"), ("DELETE", "/api/pin"),
    ("GET", "/api/games"), ("GET", "/api/games/available"), ("POST", "/api/games"),
    ("GET", "/api/games/{id}"), ("POST", "/api/games/{id}/actions"),
    ("POST", "/api/games/{id}/undo"), ("POST", "/api/games/{id}/redo"),
    ("GET", "/api/games/{id}/events"), ("GET", "/api/timer"),
    ("POST", "/api/timer/start"), ("POST", "/api/timer/stop"),
    ("POST", "/api/vision/read"),
    # Wrong methods on real routes, and addresses that are not routes at all.
    ("PUT", "/api/games/{id}"), ("DELETE", "/api/games/{id}/actions"),
    ("PATCH", "/api/games"), ("GET", "/api/games/{id}/actions"), ("GET", "/api/nothing"),
]
HUGE = [2**63, 2**64 + 1, 10**100, -(2**63) - 1, 1e308, -1e308]
UNKNOWN_IDS = ["0", "999999", "-1", "00001", str(2**64), "1e3", "abc", "%00", "..",
               "%2e%2e", "1.0", " 1", "\uff11"]
CONTENT_TYPES = ["application/json", "text/plain", "application/x-www-form-urlencoded",
                 "multipart/form-data", "application/json; charset=latin-1",
                 "text/html", None]
PINS = [PIN, None, "", "0000", " " + PIN, PIN + "\x00", "é" * 40, "1" * 10_000]
SERVER_SIDE_KEYS = ["game", "players", "options", "action", "seq", "pin", "type",
                    "cell", "company", "count", "photo", "clues", "layout"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.sampled_from(HUGE),
                    st.floats(allow_nan=True), st.text(max_size=30),
                    st.sampled_from((*GAMES, "nothing", "<script>", "../../etc")))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.sampled_from(SERVER_SIDE_KEYS) | st.text(max_size=8), inner,
                    max_size=4)), max_leaves=12)
bodies = st.one_of(
    st.none(),
    values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(SERVER_SIDE_KEYS), values, max_size=4).map(
        lambda v: json.dumps(v).encode()),
    st.binary(max_size=64),
    st.sampled_from([b"{", b"[]", b"null", b'{"seq": NaN}', b'{"seq": 1e999}',
                     b'{"action": {"type": "flip"}}', b"\xff\xfe", b'{"seq": -1}',
                     b'{"game": "shark", "players": ["A", "A"]}',
                     b'{"game": "shark", "players": 3}', b"x" * 300_000]),
)


def build(tmp: Path) -> tuple[Flask, Table, list[int]]:
    """An app with one game of each kind, a few actions into each."""
    table = Table(Store(tmp / "companion.db"))
    ids = []
    rnd = random.Random(5)
    for game in GAMES:
        session = table.create(game, PLAYERS, seed=3)
        for _ in range(8):
            action = choose([x.to_json() for x in session.game.legal(session.state)], rnd)
            if action is None:
                break
            with suppress(IllegalAction):  # a refused scripted pick: nothing stored
                table.play(session.id, action)
        ids.append(session.id)
    timer, problem = open_timer("browser", table, {})
    assert problem is None, problem
    config = {"TABLE_PIN": PIN, "SECRET_KEY": "fuzz", "TIMER": timer, "TIMER_SPEC": "browser"}
    return create_app(table, config), table, ids


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, Table, list[int]]]:
    app, table, ids = build(tmp_path_factory.mktemp("fuzz"))
    yield app, table, ids
    timer = app.extensions["timer"]
    if hasattr(timer, "close"):
        timer.close()
    table.store.close()


def log_of(table: Table) -> list[Any]:
    """Everything a refused request must leave alone."""
    store = table.store
    return [(row.id, row.game, row.players, row.options, row.over,
             [(e.id, e.action, e.undone, e.redo_of) for e in store.history(row.id)])
            for row in sorted(store.sessions(), key=lambda r: r.id)]


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(route=st.sampled_from(ROUTES), which=st.integers(0, 3) | st.sampled_from(UNKNOWN_IDS),
       body=bodies, content_type=st.sampled_from(CONTENT_TYPES),
       pin=st.sampled_from(PINS), query=st.sampled_from(["", "?last=x", "?seq=1e9", "?a=%ff"]))
def test_every_route_answers_bad_input_with_json_and_changes_nothing(
        world: tuple[Flask, Table, list[int]], route: tuple[str, str], which: int | str,
        body: bytes | None, content_type: str | None, pin: str | None, query: str) -> None:
    app, table, ids = world
    app.extensions["pin_throttle"] = auth.Throttle()  # each example starts unthrottled
    method, pattern = route
    sid = str(ids[which]) if isinstance(which, int) else which
    if pattern.endswith("/events") and any(ch.isdigit() for ch in sid):
        # An open stream on a real game never ends, and ids such as "00001" or a full-width one may
        # name a real one: only ids with no digit at all (and 424242) must 404 here.
        sid = "424242"
    path = pattern.replace("{id}", sid) + query
    headers = {} if pin is None else {"X-Table-Pin": pin}
    if content_type is not None:
        headers["Content-Type"] = content_type
    before = log_of(table)
    with app.test_client() as client:
        res = client.open(path, method=method, data=body, headers=headers)
        status = res.status_code
        payload = res.get_data()
        res.close()
    assert status < 500, (method, path, body, payload[:300])
    if status >= 400:
        assert res.mimetype == "application/json", (method, path, payload[:200])
        answer = json.loads(payload)
        assert isinstance(answer["error"], str) and answer["error"].strip()
        assert log_of(table) == before, (method, path, body)
