"""The dashboard: a Flask application over the table's sessions."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, render_template

from companion import __version__
from companion.table import Table


def create_app(table: Table, config: dict[str, Any] | None = None) -> Flask:
    """The dashboard application for ``table``; ``config`` overrides Flask settings."""
    app = Flask(__name__)
    app.config.update(MAX_CONTENT_LENGTH=16 * 1024 * 1024)
    app.config.update(config or {})
    app.extensions["table"] = table

    @app.get("/")
    def index() -> str:
        return render_template("index.html", sessions=table.list(), version=__version__)

    @app.get("/healthz")
    def healthz() -> Any:
        return jsonify(ok=True, version=__version__)

    return app
