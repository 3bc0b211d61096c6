"""What a page open downloads: text answers gzipped for browsers that take it (never the
live stream), a favicon, static files revalidated rather than sent again, and a page's
scripts as one file at an address that names its content, kept a year."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

import web

GZIP = {"Accept-Encoding": "gzip, deflate, br"}


def test_scripts_styles_and_json_are_gzipped(client: FlaskClient,
                                             writer: Callable[..., Any]) -> None:
    sid = writer("post", "/api/games", json={"game": "shark", "players": ["Ann", "Ben"]}).json["id"]
    for url in ("/static/game.js", "/static/app.css", f"/api/games/{sid}", "/", f"/games/{sid}"):
        plain = client.get(url)
        packed = client.get(url, headers=GZIP)
        assert plain.status_code == packed.status_code == 200, url
        assert "Content-Encoding" not in plain.headers, url
        assert packed.headers["Content-Encoding"] == "gzip", url
        assert "Accept-Encoding" in packed.headers["Vary"], url
        assert gzip.decompress(packed.data) == plain.data, url
        assert int(packed.headers["Content-Length"]) == len(packed.data) < len(plain.data), url


def test_a_static_file_is_revalidated_not_sent_again(client: FlaskClient) -> None:
    first = client.get("/static/game.js", headers=GZIP)
    again = client.get("/static/game.js", headers={**GZIP, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def test_the_live_stream_and_small_answers_stay_plain(client: FlaskClient,
                                                     writer: Callable[..., Any]) -> None:
    sid = writer("post", "/api/games", json={"game": "shoal", "players": ["Ann", "Ben"]}).json["id"]
    stream = client.get(f"/api/games/{sid}/events", headers=GZIP, buffered=False)
    assert stream.mimetype == "text/event-stream"
    assert "Content-Encoding" not in stream.headers
    stream.close()
    small = client.get("/healthz", headers=GZIP)
    assert "Content-Encoding" not in small.headers and (small.json or {})["ok"] is True


def test_a_favicon(client: FlaskClient) -> None:
    for url in ("/favicon.ico", "/static/favicon.svg"):
        res = client.get(url)
        assert res.status_code == 200 and res.mimetype == "image/svg+xml", url
        assert b"<svg" in res.data
    assert b'rel="icon"' in client.get("/").data


# One script and one style per page, at addresses that name their content --------------

ASSET = re.compile(r'(?:src|href)="(/assets/[0-9a-f]{16}/[^"]+)"')


def test_a_game_page_asks_for_one_script_and_one_style_kept_a_year(
        client: FlaskClient, writer: Callable[..., Any]) -> None:
    static = Path(web.__file__).parent / "static"
    for game, camera in (("shark", False), ("drshark", False), ("poodivers", True),
                         ("shoal", True)):
        sid = writer("post", "/api/games",
                     json={"game": game, "players": ["Ann", "Ben"]}).json["id"]
        page = client.get(f"/games/{sid}").data.decode()
        assert "/static/" not in page.replace("/static/favicon.svg", ""), game
        assert page.count("<script src=") == 1, game
        style, script = ASSET.findall(page)
        assert style.endswith("/app.css") and script.endswith(f"/{game}.js"), game
        res = client.get(script)
        text = res.data.decode()
        # The files in the order they ran as separate scripts, the game's start last.
        parts = ["common.js", "chart.js", "game.js", *(["camera.js"] if camera else []),
                 f"games/{game}.js", "boot.js"]
        at = [text.index((static / p).read_text()) for p in parts]
        assert at == sorted(at), game
        assert res.mimetype == "text/javascript"
        assert res.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        packed = client.get(script, headers=GZIP)
        assert gzip.decompress(packed.data) == res.data and len(packed.data) < len(res.data)
        again = client.get(script, headers={**GZIP, "If-None-Match": packed.headers["ETag"]})
        assert again.status_code == 304 and again.data == b""
    start = client.get("/").data.decode()
    assert ASSET.findall(start)[1].endswith("/start.js") and start.count("<script src=") == 1


def test_a_changed_file_gets_a_new_address(app: Flask, tmp_path: Path) -> None:
    static = tmp_path / "static"
    shutil.copytree(Path(web.__file__).parent / "static", static)
    app.static_folder = str(static)
    client = app.test_client()
    old = ASSET.findall(client.get("/").data.decode())[1]
    (static / "start.js").write_text((static / "start.js").read_text() + "\n// changed\n")
    new = ASSET.findall(client.get("/").data.decode())[1]
    assert new != old and new.endswith("/start.js")
    assert client.get(new).data.endswith(b"// changed\n")
    # A page opened before the change asks for the old address: today's script, asked
    # again each time rather than kept.
    res = client.get(old)
    assert res.status_code == 200 and res.data.endswith(b"// changed\n")
    assert res.headers["Cache-Control"] == "public, no-cache"


def test_an_unknown_asset_is_a_clear_404(client: FlaskClient) -> None:
    for name in ("nothing.js", "chess.js", "app.js.map", "games.js", "start.css"):
        res = client.get(f"/assets/0123456789abcdef/{name}")
        assert res.status_code == 404 and res.is_json, name
        assert "no asset named" in (res.json or {})["error"], name
    res = client.get("/assets/0123456789abcdef/..%2fcompanion.db")
    assert res.status_code == 404 and res.is_json


def test_the_game_inside_a_page_carries_each_line_of_the_log_once(
        client: FlaskClient, writer: Callable[..., Any]) -> None:
    sid = writer("post", "/api/games", json={"game": "shark", "players": ["Ann", "Ben"],
                                             "options": {"starting_cash": 4000}}).json["id"]
    for action in ({"type": "choose_stock", "company": "red"},
                   {"type": "choose_stock", "company": "blue"},
                   {"type": "roll", "company": "red", "area": "1"}):
        res = writer("post", f"/api/games/{sid}/actions", json={"action": action})
        assert res.status_code == 200, res.json
    whole = client.get(f"/api/games/{sid}").json or {}
    page = client.get(f"/games/{sid}").data.decode()
    found = re.search(r'<script id="game-view" type="application/json">(.*?)</script>',
                      page, re.S)
    assert found, "no game inside the page"
    inside = json.loads(found[1])
    assert [line["text"] for line in inside["log"]] == [line["text"] for line in whole["log"]]
    assert all(set(line) <= {"seq", "text", "paid"} for line in inside["log"])
    # The scores and prices after each move come once, as the score history and series.
    assert inside["timeline"] == whole["timeline"] and inside["series"] == whole["series"]
    assert {k: v for k, v in inside.items() if k != "log"} == {
        k: v for k, v in whole.items() if k != "log"}
