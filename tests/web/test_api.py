"""The JSON API with Flask's test client: every route's success, refusals, PIN, CSRF."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask.testing import FlaskClient

from companion.table import Table
from tests.support.events import read_events
from tests.web.conftest import PIN

GAME = {"game": "poodivers", "players": ["Ann", "Ben"]}
FLIP = {"type": "flip", "cell": "C3", "face": "object"}


def make_game(writer: Any) -> int:
    res = writer("post", "/api/games", json=GAME)
    assert res.status_code == 201, res.get_json()
    return int(res.get_json()["id"])


def test_healthz(client: FlaskClient) -> None:
    res = client.get("/healthz")
    assert res.status_code == 200 and res.get_json()["ok"] is True


def test_create_list_and_read(client: FlaskClient, writer: Any) -> None:
    assert client.get("/api/games").get_json() == []
    res = writer("post", "/api/games", json={**GAME, "options": {"layout": "donut"}})
    body = res.get_json()
    assert res.status_code == 201
    assert body["id"] == 1 and body["seq"] == 0 and body["current"] == "Ann"
    assert body["state"]["layout"][0] == ".#######."
    assert {"type", "choices", "player"} <= set(body["legal"][0])
    listed = client.get("/api/games").get_json()
    assert [g["id"] for g in listed] == [1] and listed[0]["winners"] == []
    again = client.get("/api/games/1").get_json()
    assert again["log"] == [] and again["timeline"] == [{"Ann": 0, "Ben": 0}]
    assert client.get("/api/games/available").get_json()[0]["game"]


def test_create_refusals(client: FlaskClient, writer: Any) -> None:
    assert client.post("/api/games", json=GAME).status_code == 401
    wrong = client.post("/api/games", json=GAME, headers={"X-Table-Pin": "9999"})
    assert wrong.status_code == 403 and "PIN" in wrong.get_json()["error"]
    unknown = writer("post", "/api/games", json={**GAME, "game": "chess"})
    assert unknown.status_code == 400 and "unknown game" in unknown.get_json()["error"]
    alone = writer("post", "/api/games", json={**GAME, "players": ["Ann"]})
    assert alone.status_code == 400 and "2 to 8 players" in alone.get_json()["error"]
    extra = writer("post", "/api/games", json={**GAME, "colour": "red"})
    assert extra.status_code == 400 and "colour" in extra.get_json()["error"]
    bad_options = writer("post", "/api/games", json={**GAME, "options": ["x"]})
    assert bad_options.status_code == 400
    malformed = writer("post", "/api/games", data="{not json",
                       headers={"Content-Type": "application/json"})
    assert malformed.status_code == 400 and malformed.is_json
    form = writer("post", "/api/games", data={"game": "poodivers"})
    assert form.status_code == 415 and form.is_json
    assert client.get("/api/games").get_json() == []


def test_play_and_illegal_actions_store_nothing(client: FlaskClient, writer: Any,
                                               table: Table) -> None:
    sid = make_game(writer)
    res = writer("post", f"/api/games/{sid}/actions", json={"action": FLIP, "seq": 0})
    body = res.get_json()
    assert res.status_code == 200 and body["seq"] == 1
    assert body["log"][0]["text"] == "Ann flipped C3: an object worth 1 point."
    assert body["state"]["turn_points"] == 1
    for bad in (
        {"action": FLIP},                                       # C3 is open now
        {"action": {"type": "dance"}},
        {"action": {"type": "flip", "cell": "Z99", "face": "object"}},
        {"action": "flip"},
        {"action": FLIP, "seq": -1},
        {"action": FLIP, "seq": True},
        {"action": FLIP, "seq": "1"},
        {"action": FLIP, "extra": 1},
        {"seq": 1},
    ):
        refused = writer("post", f"/api/games/{sid}/actions", json=bad)
        assert refused.status_code == 400, bad
        assert isinstance(refused.get_json()["error"], str)
    assert "already open" in writer("post", f"/api/games/{sid}/actions",
                                    json={"action": FLIP}).get_json()["error"]
    assert table.store.count(sid) == 1
    assert client.get(f"/api/games/{sid}").get_json()["seq"] == 1


def test_a_refusal_says_its_kind(writer: Any) -> None:
    def refused(sid: int, action: Any) -> tuple[int, str, str]:
        res = writer("post", f"/api/games/{sid}/actions", json={"action": action})
        body = res.get_json()
        return res.status_code, body["kind"], body["error"]

    sid = make_game(writer)
    writer("post", f"/api/games/{sid}/actions", json={"action": FLIP})
    assert refused(sid, {"type": "dance"}) == (
        400, "malformed", "unknown action 'dance': Tokyo Poo Divers has flip, bank, peek")
    assert refused(sid, "flip")[:2] == (400, "malformed")
    assert refused(sid, FLIP) == (
        400, "rule", "C3 is already open (object): flip a closed card")
    shoal = writer("post", "/api/games", json={"game": "shoal", "players": ["Ann", "Ben"],
                                               "options": {"goal": "G1"}}).get_json()["id"]
    play = {"type": "play", "card": "F01", "at": [0, 0], "player": "Ben"}
    assert refused(shoal, play) == (400, "not_your_turn", "it is Ann's turn, not Ben's")
    spies = writer("post", "/api/games", json={"game": "drshark",
                                               "players": ["Ann", "Ben"]}).get_json()["id"]
    tally = {"type": "tally", "dossiers": {p: {"evidence": {}, "clues": 0}
                                           for p in ("Ann", "Ben")}}
    assert writer("post", f"/api/games/{spies}/actions",
                  json={"action": tally}).status_code == 200
    status, kind, message = refused(spies, {"type": "start_search"})
    assert (status, kind) == (400, "game_over") and message.startswith("the game is over")
    fresh = make_game(writer)
    for what in ("undo", "redo"):
        res = writer("post", f"/api/games/{fresh}/{what}")
        assert (res.status_code, res.get_json()["kind"]) == (400, "rule"), what
        assert res.get_json()["error"] == f"there is nothing to {what}"


def test_an_engine_bug_is_a_500_with_a_log_line_not_a_refusal(
        writer: Any, monkeypatch: Any, caplog: Any, table: Table) -> None:
    from companion.games import poodivers

    sid = make_game(writer)

    def broken(state: Any, action: Any) -> Any:
        raise KeyError("C3")

    rules = dict(poodivers.GAME.actions)
    rules["flip"] = type(rules["flip"])(rules["flip"].fields, broken)
    monkeypatch.setattr(type(poodivers.GAME), "actions", rules)
    res = writer("post", f"/api/games/{sid}/actions", json={"action": FLIP})
    assert res.status_code == 500 and "kind" not in res.get_json()
    assert "KeyError" in caplog.text
    assert table.store.count(sid) == 0


def test_stale_seq_is_a_conflict_with_the_current_view(writer: Any, table: Table) -> None:
    sid = make_game(writer)
    writer("post", f"/api/games/{sid}/actions", json={"action": FLIP, "seq": 0})
    late = writer("post", f"/api/games/{sid}/actions", json={"action": {"type": "bank"},
                                                             "seq": 0})
    body = late.get_json()
    assert late.status_code == 409
    assert "moved on" in body["error"] and body["seq"] == 1 and body["state"]["cells"]["C3"]
    assert table.store.count(sid) == 1


def test_write_routes_need_the_pin(client: FlaskClient, writer: Any) -> None:
    sid = make_game(writer)
    for url, body in ((f"/api/games/{sid}/actions", {"action": FLIP}),
                      (f"/api/games/{sid}/undo", {}), (f"/api/games/{sid}/redo", {}),
                      ("/api/timer/start", {}), ("/api/timer/stop", {})):
        res = client.post(url, json=body)
        assert res.status_code == 401, url
        assert "PIN" in res.get_json()["error"]
    assert client.get(f"/api/games/{sid}").get_json()["seq"] == 0


def test_undo_and_redo(writer: Any, table: Table) -> None:
    sid = make_game(writer)
    assert writer("post", f"/api/games/{sid}/undo", json={}).status_code == 400
    writer("post", f"/api/games/{sid}/actions", json={"action": FLIP})
    stale = writer("post", f"/api/games/{sid}/undo", json={"seq": 0})
    assert stale.status_code == 409 and table.store.count(sid) == 1
    res = writer("post", f"/api/games/{sid}/undo", json={"seq": 1})
    body = res.get_json()
    assert res.status_code == 200 and body["undone"] == FLIP and body["seq"] == 0
    assert body["state"]["cells"]["C3"] == "closed" and body["log"] == []
    redone = writer("post", f"/api/games/{sid}/redo")
    assert redone.status_code == 200 and redone.get_json()["seq"] == 1
    assert writer("post", f"/api/games/{sid}/redo").status_code == 400
    bad = writer("post", f"/api/games/{sid}/undo", data="[1]",
                 headers={"Content-Type": "application/json"})
    assert bad.status_code == 400


def test_missing_game_is_404_json(client: FlaskClient, writer: Any) -> None:
    for res in (client.get("/api/games/42"), client.get("/api/games/42/events"),
                writer("post", "/api/games/42/actions", json={"action": FLIP}),
                writer("post", "/api/games/42/undo"), client.get("/games/42"),
                client.get("/no/such/page")):
        assert res.status_code == 404 and res.is_json and res.get_json()["error"]
    assert client.delete("/api/games").status_code == 405


def test_cookie_pin_needs_the_csrf_token(client: FlaskClient) -> None:
    assert client.post("/api/pin", json={"pin": "1111"}).status_code == 403
    assert client.post("/api/pin", json={"code": PIN}).status_code == 400
    res = client.post("/api/pin", json={"pin": PIN})
    token = res.get_json()["csrf"]
    assert res.status_code == 200 and client.get("/api/pin").get_json()["ok"] is True
    no_token = client.post("/api/games", json=GAME)
    assert no_token.status_code == 403 and "security token" in no_token.get_json()["error"]
    forged = client.post("/api/games", json=GAME, headers={"X-CSRF-Token": "forged"})
    assert forged.status_code == 403
    ok = client.post("/api/games", json=GAME, headers={"X-CSRF-Token": token})
    assert ok.status_code == 201
    client.delete("/api/pin", headers={"X-CSRF-Token": token})
    assert client.post("/api/games", json=GAME,
                       headers={"X-CSRF-Token": token}).status_code == 401


def test_wrong_pins_are_throttled(client: FlaskClient) -> None:
    codes = [client.post("/api/pin", json={"pin": f"{i:04d}"}).status_code for i in range(6)]
    assert codes == [403] * 5 + [429]
    # Even the right PIN waits once an address is throttled.
    assert client.post("/api/pin", json={"pin": PIN}).status_code == 429


def test_events_one_per_change_and_catch_up(client: FlaskClient, writer: Any) -> None:
    sid = make_game(writer)
    res = client.get(f"/api/games/{sid}/events", buffered=False)
    assert res.mimetype == "text/event-stream"
    stream = iter(res.response)
    [(kind, first_id, first)] = read_events(stream, 1)
    assert kind == "change" and first["seq"] == 0 and "log" not in first
    writer("post", f"/api/games/{sid}/actions", json={"action": FLIP})
    writer("post", f"/api/games/{sid}/actions", json={"action": {"type": "bank"}})
    writer("post", f"/api/games/{sid}/undo")
    events = read_events(stream, 3)
    assert [e[2]["seq"] for e in events] == [1, 2, 1]
    assert events[0][2]["last"]["text"] == "Ann flipped C3: an object worth 1 point."
    assert events[1][2]["current"] == "Ben"
    ids = [e[1] for e in events]
    assert len(set(ids)) == 3 and first_id not in ids
    res.close()

    # A page that saw the latest change gets nothing on reconnecting; one that slept
    # through changes gets the current view at once.
    up_to_date = client.get(f"/api/games/{sid}/events", buffered=False,
                            headers={"Last-Event-ID": ids[-1]})
    chunks = iter(up_to_date.response)
    assert isinstance(opening := next(chunks), bytes) and opening.startswith(b"retry:")
    assert next(chunks) == b": keepalive\n\n"  # nothing to catch up on
    up_to_date.close()
    behind = client.get(f"/api/games/{sid}/events?last={ids[0]}", buffered=False)
    [(_, caught_id, caught)] = read_events(iter(behind.response), 1)
    assert caught_id == ids[-1] and caught["seq"] == 1
    behind.close()


def test_lobby_events(client: FlaskClient, writer: Any) -> None:
    res = client.get("/api/events", buffered=False)
    stream = iter(res.response)
    assert isinstance(opening := next(stream), bytes) and opening.startswith(b"retry:")
    sid = make_game(writer)
    [(kind, _, note)] = read_events(stream, 1)
    assert kind == "change" and note == {"id": sid, "seq": 0}
    res.close()


def test_pages_escape_player_names(client: FlaskClient, writer: Any) -> None:
    evil = "<script>alert(1)</script>"
    writer("post", "/api/games", json={**GAME, "players": [evil, "Ben"]})
    start = client.get("/").get_data(as_text=True)
    assert evil not in start and "&lt;script&gt;alert(1)&lt;/script&gt;" in start
    page = client.get("/games/1")
    assert page.status_code == 200 and evil not in page.get_data(as_text=True)
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    qr = client.get("/qr.svg")
    assert qr.mimetype == "image/svg+xml" and b"<svg" in qr.data


def test_oversize_json_is_refused(writer: Any) -> None:
    players = ["x" * 1000] * 300
    res = writer("post", "/api/games", json={**GAME, "players": players})
    assert res.status_code == 413 and "at most 256 KB" in res.get_json()["error"]


def test_internal_errors_are_json_without_a_traceback(
        writer: Any, monkeypatch: Any, caplog: Any) -> None:
    sid = make_game(writer)

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the disk caught fire")

    monkeypatch.setattr(Table, "play", crash)
    res = writer("post", f"/api/games/{sid}/actions", json={"action": FLIP})
    body = res.get_data(as_text=True)
    assert res.status_code == 500 and res.is_json
    assert "Traceback" not in body and "fire" not in body
    assert "internal error" in res.get_json()["error"]
    assert "the disk caught fire" in caplog.text     # logged for whoever runs the Pi


def test_a_failing_page_update_does_not_fail_the_action(
        client: FlaskClient, writer: Any, monkeypatch: Any, table: Table, caplog: Any) -> None:
    sid = make_game(writer)
    broker = client.application.extensions["broker"]

    def broken(*args: Any, **kwargs: Any) -> None:
        raise KeyError("engine view bug")

    monkeypatch.setattr(broker, "_fan_out", broken)
    ok = writer("post", f"/api/games/{sid}/actions", json={"action": FLIP})
    assert ok.status_code == 200 and ok.get_json()["seq"] == 1
    assert table.store.count(sid) == 1
    assert "could not send the change" in caplog.text


def test_an_abandoned_game_takes_no_more_actions(writer: Callable[..., Any]) -> None:
    sid = writer("post", "/api/games",
                 json={"game": "shoal", "players": ["Ann", "Ben"]}).json["id"]
    assert writer("post", f"/api/games/{sid}/abandon", json={}).status_code == 200
    for url, body in ((f"/api/games/{sid}/actions", {"action": {"type": "play"}}),
                      (f"/api/games/{sid}/undo", {}), (f"/api/games/{sid}/redo", {})):
        res = writer("post", url, json=body)
        assert res.status_code == 400 and "abandoned" in res.json["error"], url
    assert writer("post", f"/api/games/{sid}/abandon", json={}).status_code == 200
    assert writer("delete", f"/api/games/{sid}", json={}).status_code == 200
    assert writer("post", f"/api/games/{sid}/abandon", json={}).status_code == 400
    assert writer("delete", "/api/games/999", json={}).status_code == 404
