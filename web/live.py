"""Live updates: Server-Sent Events, one event per change, to every open page.

The :class:`Broker` listens to the table. On a change it builds the session's view once
and puts it in the queue of every page following that session; each page's stream
waits on its own queue, so a slow phone never holds up the others or the table.

Every event has an id ``<epoch>-<n>``: ``n`` counts the session's changes since the
server started, ``epoch`` tells server runs apart. A page that reconnects (the browser
sends ``Last-Event-ID``; a page may also pass ``?last=``) gets the current view at once
unless it had already seen the latest change: that is the catch-up after a phone slept.
Timer changes go to every stream as ``timer`` events.
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from companion.table import NoSuchSession, Table
from web.chronicle import Chronicle
from web.errors import ApiError

bp = Blueprint("live", __name__)
log = logging.getLogger("companion.web")

KEEPALIVE = 15.0
"""Seconds between comments on a quiet stream, so dead connections are noticed."""
RETRY_MS = 1000
"""How soon a browser reconnects after losing the stream."""

Message = tuple[str, str, str]
"""(event name, event id, data)."""


class Broker:
    """Fans table and timer changes out to the open streams."""

    def __init__(self, table: Table, chronicle: Chronicle) -> None:
        self.table = table
        self.chronicle = chronicle
        self.epoch = secrets.token_hex(3)
        self._lock = threading.Lock()
        self._changes: dict[int, int] = {}
        self._followers: dict[int | None, set[queue.SimpleQueue[Message]]] = {}
        self._remove = table.listen(self._on_change)

    def close(self) -> None:
        self._remove()

    def event_id(self, session_id: int) -> str:
        with self._lock:
            return f"{self.epoch}-{self._changes.get(session_id, 0)}"

    def follow(self, session_id: int | None) -> queue.SimpleQueue[Message]:
        """A queue that receives the session's changes (``None``: every session's,
        as small ``{id, seq}`` notes)."""
        q: queue.SimpleQueue[Message] = queue.SimpleQueue()
        with self._lock:
            self._followers.setdefault(session_id, set()).add(q)
        return q

    def unfollow(self, session_id: int | None, q: queue.SimpleQueue[Message]) -> None:
        with self._lock:
            self._followers.get(session_id, set()).discard(q)

    def _on_change(self, session_id: int, seq: int) -> None:
        # Called by the table inside its lock, right after the change is committed: a
        # failure here must not turn an acknowledged action into an error.
        try:
            self._fan_out(session_id, seq)
        except Exception:
            log.exception("could not send the change of game %s to the pages", session_id)

    def _fan_out(self, session_id: int, seq: int) -> None:
        with self._lock:
            n = self._changes[session_id] = self._changes.get(session_id, 0) + 1
            pages = list(self._followers.get(session_id, ()))
            lobby = list(self._followers.get(None, ()))
        eid = f"{self.epoch}-{n}"
        if pages:
            view = self.chronicle.view(self.table.get(session_id), full=False)
            data = json.dumps(view, ensure_ascii=False, separators=(",", ":"))
            for q in pages:
                q.put(("change", eid, data))
        note = json.dumps({"id": session_id, "seq": seq})
        for q in lobby:
            q.put(("change", eid, note))

    def timer_changed(self, status: dict[str, Any]) -> None:
        """Send a timer status to every open stream."""
        data = json.dumps(status, separators=(",", ":"))
        with self._lock:
            everyone = [q for qs in self._followers.values() for q in qs]
        for q in everyone:
            q.put(("timer", "", data))


def _frame(event: str, eid: str, data: str) -> str:
    head = f"event: {event}\n" + (f"id: {eid}\n" if eid else "")
    return head + "".join(f"data: {line}\n" for line in data.split("\n")) + "\n"


def _stream(broker: Broker, session_id: int | None, q: queue.SimpleQueue[Message],
            first: list[Message], keepalive: float) -> Iterator[str]:
    try:
        yield f"retry: {RETRY_MS}\n\n"
        for message in first:
            yield _frame(*message)
        while True:
            try:
                message = q.get(timeout=keepalive)
            except queue.Empty:
                yield ": keepalive\n\n"
                continue
            yield _frame(*message)
    finally:
        broker.unfollow(session_id, q)


def _sse(body: Iterator[str]) -> Response:
    response = Response(body, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _last_seen() -> str:
    return request.headers.get("Last-Event-ID") or request.args.get("last", "")


@bp.get("/api/games/<int:session_id>/events")
def game_events(session_id: int) -> Response:
    """The session's changes as they happen; the current view first unless the page
    saw the latest change already."""
    broker: Broker = current_app.extensions["broker"]
    table: Table = current_app.extensions["table"]
    try:
        session = table.get(session_id)
    except NoSuchSession as err:
        raise ApiError(404, str(err)) from None
    q = broker.follow(session_id)
    eid = broker.event_id(session_id)
    first: list[Message] = []
    if _last_seen() != eid:
        view = broker.chronicle.view(session, full=False)
        first.append(("change", eid, json.dumps(view, ensure_ascii=False,
                                                separators=(",", ":"))))
    timer = current_app.extensions.get("timer")
    if timer is not None:
        first.append(("timer", "", json.dumps(timer.status())))
    return _sse(_stream(broker, session_id, q, first, current_app.config["SSE_KEEPALIVE"]))


@bp.get("/api/events")
def lobby_events() -> Response:
    """Every session's changes as ``{id, seq}`` notes, for the start page."""
    broker: Broker = current_app.extensions["broker"]
    q = broker.follow(None)
    return _sse(_stream(broker, None, q, [], current_app.config["SSE_KEEPALIVE"]))
