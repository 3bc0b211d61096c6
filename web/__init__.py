"""The dashboard: a Flask application over the table's sessions (:mod:`web.app`).

This package's own import stays light (no Flask), so the ``companion`` command line can
register ``serve`` and the doctor's checks without loading the web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

    from companion.table import Table


def create_app(table: Table, config: dict[str, Any] | None = None) -> Flask:
    """The dashboard application for ``table`` (see :func:`web.app.create_app`)."""
    from web.app import create_app as build
    return build(table, config)
