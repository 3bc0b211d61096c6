"""The table's timer over HTTP: START and STOP on screen, as on the hardware buttons.

The timer itself (state machine and backends) is ``companion.hardware``; ``companion
serve`` opens it and hands it to the app. Its status is a dict with ``state``,
``ms_left``, ``duration_ms``, ``game`` (the Dr. Shark game the timer is bound to: the
hardware buttons act on it) and ``backend``; pages hear of changes as ``timer`` events on
their live stream. ``POST /api/timer/start {"game": id}`` starts that game's search (the
timer moves to it); ``POST /api/timer/bind {"game": id}`` moves the timer without starting.
A start or stop the rules refuse answers 400 ``{"error", "kind", "timer"}`` as a refused
action does; no game for the timer, or a game that moved on meanwhile, 409.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Blueprint, current_app, jsonify

from companion.engine import IllegalAction
from companion.store import Conflict
from web.auth import require_pin
from web.errors import ApiError, json_body, optional_json_body

bp = Blueprint("timer", __name__)


class TableTimer(Protocol):
    """What the dashboard needs of ``companion.hardware``'s timer."""

    def start(self, game: int | None = None) -> Any: ...
    def stop(self) -> Any: ...
    def bind(self, game: int) -> Any: ...
    def status(self) -> dict[str, Any]: ...


def _timer() -> TableTimer:
    timer: TableTimer | None = current_app.extensions.get("timer")
    if timer is None:
        problem = current_app.extensions.get("timer_problem") or "no timer is configured"
        raise ApiError(503, f"the timer is not available: {problem}")
    return timer


def _game(body: dict[str, Any]) -> int | None:
    game = body.get("game")
    if game is not None and (isinstance(game, bool) or not isinstance(game, int)):
        raise ApiError(400, f"game is a game id (a number), not {game!r}")
    return game


def _run(what: str, *args: Any) -> Any:
    timer = _timer()
    try:
        getattr(timer, what)(*args)
    except IllegalAction as err:
        # the rules refuse (no search to stop, searched already): as any refused action
        raise ApiError(400, str(err), kind=err.kind, timer=timer.status()) from None
    except (Conflict, LookupError, RuntimeError, ValueError) as err:
        # e.g. no unfinished Dr. Shark game, or another phone acted first
        raise ApiError(409, str(err), timer=timer.status()) from None
    return jsonify(timer.status())


@bp.get("/api/timer")
def status() -> Any:
    return jsonify(_timer().status())


@bp.post("/api/timer/start")
@require_pin
def start() -> Any:
    """Start the 30 s search of the current player: of ``game`` when the body names one
    (the timer is bound to it first), else of the bound game."""
    game = _game(optional_json_body(("game",)))
    return _run("start", game)


@bp.post("/api/timer/bind")
@require_pin
def bind() -> Any:
    """Bind the table timer (and the hardware buttons) to ``game``."""
    game = _game(json_body(("game",), ("game",)))
    if game is None:
        raise ApiError(400, "game is a game id (a number), not null")
    return _run("bind", game)


@bp.post("/api/timer/stop")
@require_pin
def stop() -> Any:
    """The searcher stops early (logs ``stop``)."""
    optional_json_body(())
    return _run("stop")
