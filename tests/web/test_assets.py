"""What a page open downloads: text answers gzipped for browsers that take it (never the
live stream), a favicon, static files revalidated rather than sent again."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from typing import Any

from flask.testing import FlaskClient

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
