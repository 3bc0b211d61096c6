"""What a page open downloads, kept small: text answers gzipped for browsers that take
it (the JSON API, scripts, styles, pages; never the live stream), and the favicon."""

from __future__ import annotations

import gzip
from typing import Any

from flask import Blueprint, Flask, current_app, request

bp = Blueprint("assets", __name__)

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
