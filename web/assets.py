"""What a page open downloads, kept small: text answers gzipped for browsers that take
it (the JSON API, scripts, styles, pages; never the live stream), and the favicon.

A page's scripts come as one file (:data:`BUNDLES`, ``static/`` files joined in order)
and its style as another, each at an address that names its content
(``/assets/<digest>/<name>``): one request instead of six on a page open, packed once,
and kept by the browser for a year, since new content gets a new address.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request, url_for

from web.errors import ApiError

bp = Blueprint("assets", __name__)

YEAR = 365 * 24 * 3600


def bundle_files(name: str) -> tuple[str, ...]:
    """The ``static/`` files of asset ``name``, in the order they run: ``"app.css"``, the
    start page's scripts (``"start.js"``), or a game page's (``"<game>.js"``: the shared
    parts, the camera's where the game has one, the game's own script if it has one,
    then the start)."""
    if name == "app.css":
        return ("app.css",)
    if name == "start.js":
        return ("common.js", "start.js")
    from companion import games
    from web.camera import camera_games  # the games vision has a reader of
    game = name.removesuffix(".js")
    if not name.endswith(".js") or game not in games.available():
        raise KeyError(name)
    own = Path(current_app.static_folder or "") / "games" / name
    return ("common.js", "chart.js", "game.js",
            *(("camera.js",) if game in camera_games() else ()),
            *((f"games/{name}",) if own.is_file() else ()), "boot.js")


@dataclass(frozen=True)
class Bundle:
    """One asset as sent: its text, gzipped once, and the digest its address names."""

    body: bytes
    packed: bytes
    digest: str
    mimetype: str


_made: dict[tuple[str, str], tuple[tuple[int, ...], Bundle]] = {}
"""(static folder, name) -> the files' change times it was made at, and the asset."""
_lock = threading.Lock()


def bundle(name: str) -> Bundle:
    """Asset ``name`` made from its files as they are now (made again when one changes)."""
    folder = Path(current_app.static_folder or "")
    files = bundle_files(name)
    stamp = tuple((folder / f).stat().st_mtime_ns for f in files)
    key = (str(folder), name)
    with _lock:
        kept = _made.get(key)
    made = kept[1] if kept is not None and kept[0] == stamp else None
    if made is None:
        # Scripts joined with ";" so no file's last line runs on into the next.
        joiner = b"\n" if name.endswith(".css") else b";\n"
        body = joiner.join((folder / f).read_bytes() for f in files)
        made = Bundle(body, gzip.compress(body, compresslevel=9, mtime=0),
                      hashlib.sha256(body).hexdigest()[:16],
                      "text/css" if name.endswith(".css") else "text/javascript")
        with _lock:
            _made[key] = (stamp, made)
    return made


def asset_url(name: str) -> str:
    """The address of asset ``name`` (for templates: ``{{ asset('app.css') }}``)."""
    return url_for("assets.asset", digest=bundle(name).digest, name=name)


@bp.get("/assets/<digest>/<name>")
def asset(digest: str, name: str) -> Response:
    """An asset; kept for a year when the address names its content (an older address,
    from a page opened before an update, gets today's content, revalidated each time)."""
    try:
        made = bundle(name)
    except (KeyError, OSError):
        raise ApiError(404, f"no asset named {name[:40]!r}") from None
    packed = "gzip" in request.headers.get("Accept-Encoding", "")
    res = Response(made.packed if packed else made.body, mimetype=made.mimetype)
    if packed:
        res.headers["Content-Encoding"] = "gzip"
    res.vary.add("Accept-Encoding")
    res.set_etag(made.digest, weak=packed)
    res.headers["Cache-Control"] = (f"public, max-age={YEAR}, immutable"
                                    if digest == made.digest else "public, no-cache")
    res.make_conditional(request)      # a 304 when the browser has this content
    return res

PACKED = {"application/json", "text/javascript", "application/javascript", "text/css",
          "text/html", "image/svg+xml"}
MIN_BYTES = 600
"""Smaller answers fit one packet either way; gzip would only cost time."""


@bp.get("/favicon.ico")
def favicon() -> Any:
    """Browsers ask for this address whatever the page says; the icon is an SVG."""
    return current_app.send_static_file("favicon.svg")


def _gzip(response: Any) -> Any:
    streamed = response.is_streamed and not response.direct_passthrough   # the live stream
    if (response.status_code != 200 or streamed
            or response.mimetype not in PACKED or "Content-Encoding" in response.headers
            or "gzip" not in request.headers.get("Accept-Encoding", "")):
        return response
    response.vary.add("Accept-Encoding")
    response.direct_passthrough = False        # a static file: read it to pack it
    data = response.get_data()
    if len(data) < MIN_BYTES:
        return response
    response.set_data(gzip.compress(data, compresslevel=6, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    etag, _ = response.get_etag()
    if etag:    # the same file, another encoding: a weak tag still revalidates it (304)
        response.set_etag(etag, weak=True)
    return response


def register(app: Flask) -> None:
    app.register_blueprint(bp)
    app.after_request(_gzip)
    app.add_template_global(asset_url, "asset")
