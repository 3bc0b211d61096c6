"""Live updates: Server-Sent Events, one event per change, to every open page.

The :class:`Broker` listens to the table (called after the table's lock is released). On
a change it builds the session's view once and puts it in the queue of every page
following that session; each page's stream waits on its own queue, so a slow phone never
holds up the others or the table.

A change event is light: a patch on the session's previous event (:func:`light`), it
leaves out every part of the view that did not change (Dr. Shark's catalogue and board,
the players, the options, the shoals of the players who did not play...); the page keeps
those from the view it has. A page gets the whole view once, when it loads.

Every event has an id ``<epoch>-<n>``: ``n`` counts the session's changes since the
server started, ``epoch`` tells server runs apart. A page that reconnects (the browser
sends ``Last-Event-ID``; a page may also pass ``?last=``) gets the current view at once
unless it had already seen the latest change: that is the catch-up after a phone slept.
Timer changes go to every stream as ``timer`` events.

No stall when phones reconnect: each stream holds one of waitress's worker threads, so a
stream whose phone has gone must end at once, not at the next write. ``companion serve``
runs waitress with a request lookahead, so waitress keeps reading a connection while its
stream runs and sees the phone close it (``waitress.client_disconnected``); the stream
checks that every :data:`POLL_S` and returns its thread. A phone that vanishes without
closing (out of Wi-Fi) is found by TCP keepalive probes within a few seconds
(``web/commands.py``), which waitress then reports the same way. Detecting dead streams
was chosen over a cap of streams per phone (a phone behind the Pi's hotspot or a proxy
cannot always be told apart, and a cap would end live pages of a second tab) and over a
thread-free server (waitress is the one production server the dashboard runs on).
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from companion.table import NoSuchSession, Table
from web.chronicle import Chronicle
from web.errors import ApiError

bp = Blueprint("live", __name__)
log = logging.getLogger("companion.web")

POLL_S = 0.2
"""How often a quiet stream checks that its phone is still there."""
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
        self._sent: dict[int, dict[str, Any]] = {}
        """The view of each followed session's last event (what the next leaves out)."""
        self._building: dict[int, threading.Lock] = {}
        """Per session: one change event built at a time, so each page gets them in order."""
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
            pages = self._followers.get(session_id, set())
            pages.discard(q)
            if not pages and session_id is not None:  # forget what nobody follows
                self._followers.pop(session_id, None)
                self._sent.pop(session_id, None)
                self._building.pop(session_id, None)

    def _on_change(self, session_id: int, seq: int) -> None:
        # Called by the table right after the change is committed: a failure here must
        # not turn an acknowledged action into an error.
        try:
            self._fan_out(session_id, seq)
        except Exception:
            log.exception("could not send the change of game %s to the pages", session_id)

    def _fan_out(self, session_id: int, seq: int) -> None:
        with self._lock:
            building = self._building.setdefault(session_id, threading.Lock())
        with building:
            with self._lock:
                n = self._changes[session_id] = self._changes.get(session_id, 0) + 1
                pages = list(self._followers.get(session_id, ()))
                lobby = list(self._followers.get(None, ()))
                before = self._sent.get(session_id)
            eid = f"{self.epoch}-{n}"
            if pages:
                view = self.chronicle.view(self.table.get(session_id), full=False)
                data = encode(light(view, before))
                with self._lock:
                    if session_id in self._followers:
                        self._sent[session_id] = view
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


ALWAYS = ("id", "seq", "last")
"""Sent in every change event, changed or not."""
DEPTH = 3
"""How deep into the view's objects a change event leaves parts out: ``state``, a key of
it (Shoal's ``shoals``) and one more (one player's shoal, one Poo Divers cell)."""


def light(view: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """``view`` as a patch on ``before`` (the session's previous event): only what
    changed, with ``"patch": true``; paths of keys that went away in ``gone``.

    Applying it: for each key of the patch, an object in both (down to :data:`DEPTH`
    levels) is patched the same way, anything else replaced; then ``gone`` removed."""
    if before is None:
        return view
    gone: list[list[str]] = []
    out = _patch(view, before, [], gone)
    out.update({key: view[key] for key in ALWAYS if key in view})
    out["patch"] = True
    if gone:
        out["gone"] = gone
    return out


def _patch(new: dict[str, Any], old: dict[str, Any], path: list[str],
           gone: list[list[str]]) -> dict[str, Any]:
    gone += [[*path, key] for key in old if key not in new]
    out: dict[str, Any] = {}
    for key, value in new.items():
        if key in old and value == old[key]:
            continue
        if (key in old and isinstance(value, dict) and isinstance(old[key], dict)
                and len(path) < DEPTH - 1):
            out[key] = _patch(value, old[key], [*path, key], gone)
        else:
            out[key] = value
    return out


def patched(view: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    """The view a page has after ``event`` (what web/static/game.js does)."""
    if not event.get("patch"):
        return event
    out = _apply(view, {k: v for k, v in event.items() if k not in ("patch", "gone")}, 0)
    for path in event.get("gone", []):
        parent = out
        for key in path[:-1]:
            parent = parent[key]
        parent.pop(path[-1], None)
    return out


def _apply(old: dict[str, Any], patch: dict[str, Any], depth: int) -> dict[str, Any]:
    out = dict(old)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(old.get(key), dict) and depth < DEPTH - 1:
            out[key] = _apply(old[key], value, depth + 1)
        else:
            out[key] = value
    return out


def encode(view: dict[str, Any]) -> str:
    return json.dumps(view, ensure_ascii=False, separators=(",", ":"))


def _frame(event: str, eid: str, data: str) -> str:
    head = f"event: {event}\n" + (f"id: {eid}\n" if eid else "")
    return head + "".join(f"data: {line}\n" for line in data.split("\n")) + "\n"


def _stream(broker: Broker, session_id: int | None, q: queue.SimpleQueue[Message],
            first: list[Message], keepalive: float) -> Iterator[str]:
    gone: Callable[[], bool] = request.environ.get("waitress.client_disconnected",
                                                   lambda: False)
    poll = min(POLL_S, keepalive)

    def frames() -> Iterator[str]:
        try:
            yield f"retry: {RETRY_MS}\n\n"
            for message in first:
                yield _frame(*message)
            quiet = 0.0
            while not gone():
                try:
                    message = q.get(timeout=poll)
                except queue.Empty:
                    quiet += poll
                    if quiet >= keepalive:
                        quiet = 0.0
                        yield ": keepalive\n\n"
                    continue
                quiet = 0.0
                yield _frame(*message)
        finally:
            broker.unfollow(session_id, q)
    return frames()


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
        first.append(("change", eid, encode(broker.chronicle.view(session, full=False))))
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
