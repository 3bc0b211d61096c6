"""The dashboard's pages: the start page (new game, resume, history, QR code) and one
page per game. The pages are drawn in the browser from the same JSON API."""

from __future__ import annotations

import io
import socket
from typing import Any

import segno
from flask import Blueprint, Response, current_app, render_template, request, session

from companion import __version__, games
from companion.table import NoSuchSession, Table
from web import games as games_api
from web import hotspot
from web.auth import LOOPBACK, client_address, csrf_token
from web.errors import ApiError

bp = Blueprint("pages", __name__)

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")


def lan_address() -> str:
    """The address phones on the LAN should open: this machine's outward-facing IP
    (found without sending anything), else the address the page was asked for."""
    host = request.host.split(":")[0]
    port = request.host.rsplit(":", 1)[1] if ":" in request.host else "80"
    configured = current_app.config.get("PUBLIC_URL")
    if configured:
        return str(configured)
    own = hotspot.active()
    if own is not None and own.address and host in LOCAL_NAMES:
        return f"http://{own.address}:{port}/"      # phones join the Pi's own Wi-Fi
    if host in LOCAL_NAMES:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect(("192.0.2.1", 9))  # TEST-NET: a route lookup, no packet
                host = probe.getsockname()[0]
        except OSError:
            pass
    return f"http://{host}:{port}/"


PAGE_LOG = ("seq", "text", "paid")
"""What a page reads of each line of the log it brings inside it: the move's number, its
words and the bank's payments."""


def page_view(view: dict[str, Any]) -> dict[str, Any]:
    """The view a game page brings inside it: the API's, each log line without its scores
    and chart values, which the page has once in ``timeline`` and ``series`` (after 200
    moves of Shark they were half the page)."""
    return {**view, "log": [{k: line[k] for k in PAGE_LOG if k in line}
                            for line in view["log"]]}


def _common() -> dict[str, Any]:
    return {"version": __version__, "csrf": csrf_token(),
            "pin_ok": bool(session.get("pin_ok"))}


def _may_show_pin() -> bool:
    """The PIN shows on the Pi's own screen (a loopback visitor), or everywhere when
    ``show_pin`` is set."""
    local = client_address() in LOOPBACK  # through a local proxy, the phone's address
    return bool(current_app.config.get("SHOW_PIN")) or local


def shoal_goals() -> dict[str, str]:
    """The default Shoal deck's goal cards, id -> what they score."""
    from companion.games.shoal.deck import load_deck
    deck = load_deck("default")
    return {gid: "; ".join(g.describe() for g in card.goals)
            for gid, card in sorted(deck.goals.items())}


@bp.get("/")
def start() -> str:
    table: Table = current_app.extensions["table"]
    names = {n: games.get(n).title for n in games.available()}
    return render_template("index.html", games=names, address=lan_address(),
                           hotspot=hotspot.active(),
                           goals=shoal_goals(),
                           show_pin=_may_show_pin(),
                           pin=current_app.config["TABLE_PIN"], sessions=table.list(),
                           **_common())


@bp.get("/games/<int:session_id>")
def game_page(session_id: int) -> str:
    table: Table = current_app.extensions["table"]
    try:
        game_session = table.get(session_id)
    except NoSuchSession as err:
        raise ApiError(404, str(err)) from None
    name = game_session.game.name
    # The game comes inside the page: it draws as soon as its scripts have run, with no
    # second trip to the table for the JSON.
    return render_template("game.html", session_id=session_id, game=name,
                           title=game_session.game.title, players=game_session.players,
                           view=page_view(games_api.view(game_session)),
                           words=game_session.game.words(),
                           browser_timer=current_app.config.get("TIMER_SPEC") == "browser",
                           **_common())


def _qr(text: str) -> Response:
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False,
                                     svgns=True)
    return Response(out.getvalue(), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})


@bp.get("/qr.svg")
def qr_code() -> Response:
    """The dashboard's LAN address as a QR code, made here (the Pi may be offline)."""
    return _qr(lan_address())


@bp.get("/wifi.svg")
def wifi_code() -> Response:
    """The Pi's own Wi-Fi as a QR code phones' cameras join (when its hotspot is on)."""
    own = hotspot.active()
    if own is None:
        raise ApiError(404, "the companion's hotspot is not on ('companion hotspot')")
    return _qr(own.wifi_code())
