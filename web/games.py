"""The games API: list, create, read, act, undo (DESIGN.md, "HTTP API")."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from companion import games
from companion.engine import BadSetup, IllegalAction
from companion.store import Conflict
from companion.table import NoSuchSession, Session, Table
from web.auth import require_pin
from web.chronicle import Chronicle
from web.errors import ApiError, json_body, log, optional_json_body

bp = Blueprint("games", __name__)

def _table() -> Table:
    table: Table = current_app.extensions["table"]
    return table


def _chronicle() -> Chronicle:
    chronicle: Chronicle = current_app.extensions["chronicle"]
    return chronicle


def _session(session_id: int) -> Session:
    try:
        return _table().get(session_id)
    except NoSuchSession as err:
        raise ApiError(404, str(err)) from None


def _seq(body: dict[str, Any]) -> int | None:
    seq = body.get("seq")
    if seq is None:
        return None
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise ApiError(400, "\"seq\" is the number of actions you have seen (0 or more)")
    return seq


def view(session: Session, *, full: bool = True) -> dict[str, Any]:
    """The session's view and ``event``: the id of the latest live event, taken before
    the view is built (so the view is at least that new). A page keeps it to know which
    event the next one is a patch on (web/live.py)."""
    event = current_app.extensions["broker"].event_id(session.id)
    return {**_chronicle().view(session, full=full), "event": event}


def answer(session: Session) -> dict[str, Any]:
    """The view a write answers with: whole, or with ``?light=1`` shaped like a live
    event (the last step instead of the log), which is what the pages ask for."""
    return view(session, full=request.args.get("light") != "1")


@bp.get("/api/games")
def list_games() -> Any:
    """Every stored game, the most recently active first, with scores and winners
    (deleted ones only with ``?deleted=1``)."""
    deleted = request.args.get("deleted") == "1"
    out = []
    for row in _table().list():
        if row.closed == "deleted" and not deleted:
            continue
        item: dict[str, Any] = {"id": row.id, "game": row.game, "players": row.players,
                                "over": row.over, "created": row.created,
                                "updated": row.updated, "closed": row.closed}
        try:
            session = _table().get(row.id)
            summary = session.game.summary(session.state)
            item.update(seq=session.seq, title=session.game.title,
                        current=summary["current"], scores=summary["scores"],
                        winners=summary["winners"])
        except (games.UnknownGame, ValueError) as err:
            # A game whose engine is missing or changed: list it, say why it won't open.
            item["problem"] = str(err)
        out.append(item)
    return jsonify(out)


@bp.get("/api/games/available")
def available() -> Any:
    """The games this companion can start, with their player limits."""
    out = []
    for name in games.available():
        game = games.get(name)
        out.append({"game": name, "title": game.title, "min_players": game.min_players,
                    "max_players": game.max_players})
    return jsonify(out)


@bp.post("/api/games")
@require_pin
def create_game() -> Any:
    body = json_body({"game", "players", "options"}, required=("game", "players"))
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise ApiError(400, "\"options\" must be a JSON object")
    try:
        session = _table().create(body["game"], body["players"], options)
    except (games.UnknownGame, BadSetup) as err:
        raise ApiError(400, str(err)) from None
    return jsonify(view(session)), 201


@bp.get("/api/games/<int:session_id>")
def get_game(session_id: int) -> Any:
    """The view, and ``event``: the id of the latest live event, so a page that opens the
    stream with ``?last=`` that id is not sent the game a second time."""
    return jsonify(view(_session(session_id)))


@bp.get("/api/games/<int:session_id>/ledger")
def ledger(session_id: int) -> Any:
    """Every payment between the bank and the players, in order (Shark's money)."""
    return jsonify(_chronicle().ledger(_session(session_id)))


@bp.get("/api/games/<int:session_id>/history/<int:n>")
def look_back(session_id: int, n: int) -> Any:
    """The game after its first ``n`` actions, read-only (the page's history)."""
    try:
        return jsonify(_chronicle().view_at(_session(session_id), n))
    except IndexError as err:
        raise ApiError(404, str(err)) from None


@bp.post("/api/games/<int:session_id>/actions")
@require_pin
def play(session_id: int) -> Any:
    body = json_body({"action", "seq"}, required=("action",))
    session = _session(session_id)
    action = body["action"]
    if not isinstance(action, dict):
        raise ApiError(400, "\"action\" must be a JSON object with a \"type\"",
                       kind="malformed")
    try:
        session = _table().play(session_id, action, _seq(body))
    except Conflict as err:
        raise ApiError(409, str(err), **view(session)) from None
    except IllegalAction as err:
        raise ApiError(400, str(err), kind=err.kind) from None
    return jsonify({**answer(session), **_peeked(session, action)})


def _peeked(session: Session, action: dict[str, Any]) -> dict[str, Any]:
    """A digital peek's face, in the answer to the phone that peeked only (never in the
    view, the log or the live events every phone gets)."""
    deal = session.options.get("deal")
    if action.get("type") != "peek" or not isinstance(deal, dict):
        return {}
    cell = action.get("cell")
    return {"peeked": {"cell": cell, "face": deal[cell]}} if cell in deal else {}


@bp.post("/api/games/<int:session_id>/undo")
@require_pin
def undo(session_id: int) -> Any:
    """Take back the last action (kept in the history as undone)."""
    body = optional_json_body({"seq"})
    session = _session(session_id)
    try:
        undone = _table().undo(session_id, _seq(body))
    except Conflict as err:
        raise ApiError(409, str(err), **view(session)) from None
    except IllegalAction as err:
        raise ApiError(400, str(err), kind=err.kind) from None
    if undone is None:
        raise ApiError(400, "there is nothing to undo", kind="rule")
    return jsonify({**answer(session), "undone": undone})


@bp.post("/api/games/<int:session_id>/redo")
@require_pin
def redo(session_id: int) -> Any:
    """Play again the action undone last, if nothing was played since."""
    optional_json_body(())
    session = _session(session_id)
    try:
        redone = _table().redo(session_id)
    except IllegalAction as err:
        raise ApiError(400, str(err), kind=err.kind) from None
    if redone is None:
        raise ApiError(400, "there is nothing to redo", kind="rule")
    return jsonify({**answer(session), "redone": redone})


@bp.post("/api/games/<int:session_id>/abandon")
@require_pin
def abandon(session_id: int) -> Any:
    """Give a game up: it moves to the history as abandoned, every action kept."""
    return _close(session_id, "abandoned")


@bp.delete("/api/games/<int:session_id>")
@require_pin
def delete(session_id: int) -> Any:
    """Take a game off the start page. Its row and actions stay in the database (the
    API lists it with ``?deleted=1``; ``companion export`` still writes it)."""
    return _close(session_id, "deleted")


def _close(session_id: int, how: str) -> Any:
    optional_json_body(())
    _session(session_id)
    try:
        session = _table().close(session_id, how)
    except IllegalAction as err:
        raise ApiError(400, str(err), kind=err.kind) from None
    log.info("game %s %s from the start page (%s)", session_id, how, request.remote_addr)
    return jsonify(view(session))
