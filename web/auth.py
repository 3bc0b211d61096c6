"""The table PIN: writes need it, reads are open on the LAN.

A write is allowed with the ``X-Table-Pin`` header, or with the session cookie a page
gets by entering the PIN (``POST /api/pin``). Cookie-authenticated writes must also send
the ``X-CSRF-Token`` the page was given, so another site open on a player's phone
cannot act for them. Wrong PINs are counted per address and slowed down, so a 6-digit
PIN cannot be guessed by trying them all.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import Blueprint, current_app, jsonify, request, session

from web.errors import ApiError, json_body

bp = Blueprint("auth", __name__)

F = TypeVar("F", bound=Callable[..., Any])

MAX_FAILURES = 5
"""Wrong PINs allowed from one address per :data:`FAILURE_WINDOW` seconds."""
FAILURE_WINDOW = 60.0


class Throttle:
    """Wrong-PIN attempts per client address, forgotten after a quiet minute."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[str, list[float]] = {}

    def blocked(self, who: str) -> bool:
        with self._lock:
            recent = [t for t in self._failures.get(who, []) if time.monotonic() - t
                      < FAILURE_WINDOW]
            self._failures[who] = recent
            return len(recent) >= MAX_FAILURES

    def failed(self, who: str) -> None:
        with self._lock:
            self._failures.setdefault(who, []).append(time.monotonic())


def pin_matches(given: object) -> bool:
    pin = current_app.config["TABLE_PIN"]
    return isinstance(given, str) and hmac.compare_digest(given.encode(), pin.encode())


def csrf_token() -> str:
    """The token this browser session sends back with cookie-authenticated writes."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    token: str = session["csrf"]
    return token


def _check_pin(given: str) -> None:
    throttle: Throttle = current_app.extensions["pin_throttle"]
    who = request.remote_addr or "?"
    if throttle.blocked(who):
        raise ApiError(429, "too many wrong PINs: wait a minute and try again")
    if not pin_matches(given):
        throttle.failed(who)
        raise ApiError(403, "wrong table PIN: it is shown on the companion's screen")


def require_pin(view: F) -> F:
    """Allow the wrapped write only with the table PIN (header, or cookie + CSRF token)."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        header = request.headers.get("X-Table-Pin")
        if header is not None:
            _check_pin(header)
        elif session.get("pin_ok"):
            sent = request.headers.get("X-CSRF-Token", "")
            if not hmac.compare_digest(sent.encode(), session.get("csrf", "").encode()):
                raise ApiError(403, "the page's security token is missing or stale: "
                                    "reload the page")
        else:
            raise ApiError(401, "this needs the table PIN: enter it on the page or send "
                                "the X-Table-Pin header")
        return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


@bp.post("/api/pin")
def enter_pin() -> Any:
    """Check the PIN typed on a page and remember it in the session cookie."""
    body = json_body({"pin"})
    pin = body.get("pin")
    if not isinstance(pin, str) or not pin.strip():
        raise ApiError(400, "send {\"pin\": \"...\"}")
    _check_pin(pin.strip())
    session.permanent = True
    session["pin_ok"] = True
    return jsonify(ok=True, csrf=csrf_token())


@bp.get("/api/pin")
def pin_state() -> Any:
    """Whether this browser may write, and its CSRF token."""
    return jsonify(ok=bool(session.get("pin_ok")), csrf=csrf_token())


@bp.delete("/api/pin")
def forget_pin() -> Any:
    if session.get("pin_ok"):
        sent = request.headers.get("X-CSRF-Token", "")
        if not hmac.compare_digest(sent.encode(), session.get("csrf", "").encode()):
            raise ApiError(403, "the page's security token is missing or stale")
    session.pop("pin_ok", None)
    return jsonify(ok=False)
