"""The hub's pages: every table live, a table's own page, the league (DESIGN-style routes
in the README, "Hub"). The pages are drawn in the browser from the JSON routes and kept
live by Server-Sent Events, in the dashboard's look (its stylesheet is reused)."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, jsonify, render_template, request

import web
from companion import __version__, games
from hub import topics
from hub.league import league
from hub.ledger import Ledger

KEEPALIVE = 15.0
RETRY_MS = 1000


class Feed:
    """Fans the ledger's changes out to the open pages: one queue per page, so a slow
    phone holds up no one. :meth:`close` ends every stream (``None`` in its queue), so
    the server stops without waiting out a keepalive."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._lock = threading.Lock()
        self._followers: dict[str | None, set[queue.SimpleQueue[str | None]]] = {}
        self._closed = False

    def follow(self, table: str | None) -> queue.SimpleQueue[str | None]:
        q: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        with self._lock:
            self._followers.setdefault(table, set()).add(q)
            if self._closed:
                q.put(None)
        return q

    def unfollow(self, table: str | None, q: queue.SimpleQueue[str | None]) -> None:
        with self._lock:
            self._followers.get(table, set()).discard(q)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for pages in self._followers.values():
                for q in pages:
                    q.put(None)

    def changed(self, tables: set[str]) -> None:
        for name in sorted(tables):
            data = json.dumps(self.ledger.table_json(name), ensure_ascii=False,
                              separators=(",", ":"))
            with self._lock:
                pages = [*self._followers.get(name, ()), *self._followers.get(None, ())]
            for q in pages:
                q.put(data)


def _frame(data: str) -> str:
    return f"event: table\ndata: {data}\n\n"


def create_app(ledger: Ledger, config: dict[str, Any] | None = None) -> Flask:
    """The hub's application over ``ledger``; ``config["BROKER"]`` is shown on the page.
    Call ``app.extensions["feed"].changed(tables)`` when tables change."""
    app = Flask(__name__, static_folder=str(Path(web.__file__).parent / "static"))
    app.config.update(JSON_SORT_KEYS=False, SSE_KEEPALIVE=KEEPALIVE, BROKER="",
                      DEBUG=False, PROPAGATE_EXCEPTIONS=False)
    app.config.update(config or {})
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.debug = False
    feed = Feed(ledger)
    app.extensions.update(ledger=ledger, feed=feed)
    bp = Blueprint("hub", __name__, static_folder="static", static_url_path="/hub-static",
                    template_folder="templates")

    def common() -> dict[str, Any]:
        return {"version": __version__, "broker": app.config["BROKER"]}

    @bp.get("/")
    def index() -> str:
        return render_template("hub.html", **common())

    @bp.get("/tables/<name>")
    def table_page(name: str) -> str:
        if not topics.TABLE_NAME.match(name):
            abort(404)
        return render_template("hub_table.html", table=name, **common())

    @bp.get("/api/tables")
    def api_tables() -> Any:
        return jsonify(ledger.tables_json())

    @bp.get("/api/tables/<name>")
    def api_table(name: str) -> Any:
        if not topics.TABLE_NAME.match(name) or name not in {
                t["table"] for t in ledger.tables_json()["tables"]}:
            return jsonify(error=f"no table named {name[:40]!r} has been seen"), 404
        return jsonify(ledger.table_json(name))

    @bp.get("/api/tables/<name>/games/<int:game_id>")
    def api_game(name: str, game_id: int) -> Any:
        found = ledger.game_json(name, game_id) if topics.TABLE_NAME.match(name) else None
        if found is None:
            return jsonify(error=f"the hub has no game {game_id} of table {name[:40]!r}"), 404
        return jsonify(found)

    @bp.get("/api/league")
    def api_league() -> Any:
        titles = {n: games.get(n).title for n in games.available()}
        return jsonify(league(ledger.finished(), titles))

    @bp.get("/api/events")
    def events() -> Response:
        """Every table's changes (``?table=NAME``: that table's), each as the table's
        whole entry of ``/api/tables``; the current state first."""
        name = request.args.get("table") or None
        if name is not None and not topics.TABLE_NAME.match(name):
            abort(404)
        q = feed.follow(name)
        tables = ledger.tables_json()["tables"]
        first = [json.dumps(t, ensure_ascii=False, separators=(",", ":")) for t in tables
                 if name is None or t["table"] == name]
        keepalive = float(app.config["SSE_KEEPALIVE"])

        def stream() -> Iterator[str]:
            try:
                yield f"retry: {RETRY_MS}\n\n"
                for data in first:
                    yield _frame(data)
                while True:
                    try:
                        change = q.get(timeout=keepalive)
                    except queue.Empty:
                        yield ": keepalive\n\n"
                        continue
                    if change is None:  # the hub is stopping
                        return
                    yield _frame(change)
            finally:
                feed.unfollow(name, q)

        response = Response(stream(), mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Accel-Buffering"] = "no"
        return response

    @bp.get("/healthz")
    def healthz() -> Any:
        return jsonify(ok=True, version=__version__,
                       tables=len(ledger.tables_json()["tables"]))

    @app.errorhandler(404)
    def not_found(err: Any) -> Any:
        return jsonify(error="no such page on the hub"), 404

    @app.after_request
    def headers(response: Any) -> Any:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'")
        return response

    app.register_blueprint(bp)
    return app
