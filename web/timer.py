"""The table's timer over HTTP: START and STOP on screen, as on the hardware buttons.

The timer itself (state machine and backends) is ``companion.hardware``; ``companion
serve`` opens it and hands it to the app. Its status is a dict with ``state``,
``ms_left``, ``duration_ms``, ``session`` and ``backend``; pages hear of changes as
``timer`` events on their live stream.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Blueprint, current_app, jsonify

from companion.engine import IllegalAction
from companion.store import Conflict
from web.auth import require_pin
from web.errors import ApiError, optional_json_body

bp = Blueprint("timer", __name__)


class TableTimer(Protocol):
    """What the dashboard needs of ``companion.hardware``'s timer."""

    def start(self) -> Any: ...
    def stop(self) -> Any: ...
    def status(self) -> dict[str, Any]: ...


def _timer() -> TableTimer:
    timer: TableTimer | None = current_app.extensions.get("timer")
    if timer is None:
        problem = current_app.extensions.get("timer_problem") or "no timer is configured"
        raise ApiError(503, f"the timer is not available: {problem}")
    return timer


def _run(what: str) -> Any:
    optional_json_body(())
    timer = _timer()
    try:
        getattr(timer, what)()
    except (IllegalAction, Conflict, LookupError, RuntimeError, ValueError) as err:
        # e.g. no unfinished Dr. Shark game, or the current player cannot search now
        raise ApiError(409, str(err), timer=timer.status()) from None
    return jsonify(timer.status())


@bp.get("/api/timer")
def status() -> Any:
    return jsonify(_timer().status())


@bp.post("/api/timer/start")
@require_pin
def start() -> Any:
    """Start the 30 s search of the current player in the latest Dr. Shark game."""
    return _run("start")


@bp.post("/api/timer/stop")
@require_pin
def stop() -> Any:
    """The searcher stops early (logs ``stop``)."""
    return _run("stop")
