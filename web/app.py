"""The dashboard's Flask application over the table's sessions.

:func:`create_app` builds it; ``companion serve`` (``web.commands``) runs it behind
waitress. Blueprints per area: pages, games API, live events, timer, camera, PIN.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from flask import Flask, jsonify, request

from companion import __version__
from companion.table import Table
from web import assets, auth, camera, errors, games, live, pages, timer
from web.chronicle import Chronicle

DEFAULTS: dict[str, Any] = {
    "MAX_CONTENT_LENGTH": 20 * 1024 * 1024,   # a phone photo; JSON bodies are far smaller
    "SESSION_COOKIE_NAME": "companion",
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "PERMANENT_SESSION_LIFETIME": timedelta(days=30),
    "SSE_KEEPALIVE": 15.0,
    "MAX_JSON_LENGTH": 256 * 1024,            # the largest inline board or deck fits
    "JSON_SORT_KEYS": False,
    "DEBUG": False,
    "PROPAGATE_EXCEPTIONS": False,
}


def create_app(table: Table, config: dict[str, Any] | None = None) -> Flask:
    """The dashboard application for ``table``.

    ``config`` holds Flask settings and the companion's: ``TABLE_PIN`` (required for
    writes; a random one is made if missing), ``SECRET_KEY``, ``TIMER`` (an open
    ``companion.hardware`` timer, or ``None``), ``TIMER_SPEC``, ``TIMER_PROBLEM``,
    ``VISION`` (deck, faces, mat paths for the camera reader), ``SHOW_PIN``.
    """
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    app.config.setdefault("TABLE_PIN", f"{secrets.randbelow(10**6):06d}")
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secrets.token_hex(32)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    # The game a page brings inside it (the tojson filter) in the same order as the API's
    # answers and the live events: Jinja sorts its keys unless told not to, and a page
    # draws some choices in key order (a form's fields, the catalogue's evidence).
    app.jinja_env.policies["json.dumps_kwargs"] = {"sort_keys": False}
    app.debug = False  # the Werkzeug debugger would run code for anyone on the LAN

    chronicle = Chronicle()
    broker = live.Broker(table, chronicle)
    app.extensions.update(table=table, chronicle=chronicle, broker=broker,
                          pin_throttle=auth.Throttle())
    timer_obj = app.config.get("TIMER")
    app.extensions["timer"] = timer_obj
    app.extensions["timer_problem"] = app.config.get("TIMER_PROBLEM")
    if timer_obj is not None and hasattr(timer_obj, "listen"):
        timer_obj.listen(broker.timer_changed)

    errors.register(app)
    assets.register(app)
    for blueprint in (pages.bp, auth.bp, games.bp, live.bp, timer.bp, camera.bp):
        app.register_blueprint(blueprint)

    @app.get("/healthz")
    def healthz() -> Any:
        return jsonify(ok=True, version=__version__, games=len(table.list()),
                       timer=timer_obj.status() if timer_obj is not None else None)

    @app.before_request
    def limit_json() -> Any:
        limit = app.config["MAX_JSON_LENGTH"]
        if request.is_json and (request.content_length or 0) > limit:
            return jsonify(error=f"the request is too large: JSON bodies are at most "
                                 f"{limit // 1024} KB"), 413
        return None

    @app.after_request
    def headers(response: Any) -> Any:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
            "script-src 'self'; connect-src 'self'; media-src 'self' blob: data:")
        return response

    return app
