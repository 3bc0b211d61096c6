"""Live updates: Server-Sent Events, one event per change, to every open page.

The :class:`Broker` listens to the table (called after the table's lock is released). On
a change it builds the session's view once and puts it in the queue of every page
following that session; each page's stream waits on its own queue, so a slow phone never
holds up the others or the table.

A change event is light: a patch on the session's previous event (:func:`light`), it
leaves out every part of the view that did not change (Dr. Shark's catalogue and board,
the players, the options, the shoals of the players who did not play...) and gives a
list that changed as its edits (a clue out of the bag, a cell no longer to flip); the
page keeps the rest from the view it has. A page gets the whole view once, when it loads.
Each patch names the event it is a patch on (``on``): a page whose view is not that
one (it missed an event) fetches the whole game again instead of patching the wrong
view, so every page ends with the table's view.

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

import difflib
import json
import logging
import queue
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from companion.table import MAX_SESSIONS, NoSuchSession, Table
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
        self._sent: OrderedDict[int, tuple[str, dict[str, Any]]] = OrderedDict()
        """Of the :data:`MAX_SESSIONS` sessions followed last: the id and view of the last
        event, what the next one is a patch on. Kept when the last page leaves, so the
        next page to open the game gets light events from its first change on."""
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
        if session_id is not None:
            self._base(session_id)
        return q

    def unfollow(self, session_id: int | None, q: queue.SimpleQueue[Message]) -> None:
        with self._lock:
            pages = self._followers.get(session_id, set())
            pages.discard(q)
            if not pages and session_id is not None:
                self._followers.pop(session_id, None)

    def _base(self, session_id: int) -> None:
        """What the session's next event is a patch on, for a session no event was
        built for yet: the view as it is now, under the id of the last change."""
        with self._lock:
            building = self._building.setdefault(session_id, threading.Lock())
        with building:
            with self._lock:
                if session_id in self._sent:
                    return
                eid = f"{self.epoch}-{self._changes.get(session_id, 0)}"
            view = self.chronicle.view(self.table.get(session_id), full=False)
            with self._lock:
                self._keep(session_id, eid, view)

    def _keep(self, session_id: int, eid: str, view: dict[str, Any]) -> None:
        """(Under ``_lock``.) The session's last event, the oldest let go."""
        self._sent[session_id] = (eid, view)
        self._sent.move_to_end(session_id)
        while len(self._sent) > MAX_SESSIONS:
            old, _ = self._sent.popitem(last=False)
            lock = self._building.get(old)
            if lock is not None and not lock.locked() and old not in self._followers:
                del self._building[old]

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
            if pages or before is not None:
                view = self.chronicle.view(self.table.get(session_id), full=False)
                with self._lock:
                    self._keep(session_id, eid, view)
                if pages:
                    event = light(view, before[1] if before else None)
                    if before is not None and event is not view:
                        event["on"] = before[0]     # the page checks it has that one
                    data = encode(event)
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


def light(view: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """``view`` as a patch on ``before`` (the session's previous event): only what
    changed, with ``"patch": true``; ``view`` itself when there is no ``before`` or
    nothing changed (a base made while this change was under way: the whole view is
    sure to be right).

    Applying it (:func:`patched`): for each key of the patch, an object in both is
    patched the same way, anything else replaced; then each of ``edits`` in order, the
    changes inside lists (a list is given as its edits when they are shorter than it):
    ``["splice", path, index, remove, items]`` (a drawn clue leaves the bag as
    ``[..., i, 1, []]``, not as the bag again), ``["set", path, value]``, ``["del",
    path]``, a path's steps keys and list positions; then the paths in ``gone`` go."""
    if before is None:
        return view
    gone: list[list[str]] = []
    edits: list[list[Any]] = []
    out = _patch(view, before, [], gone, edits)
    if not out and not gone and not edits:
        return view
    out.update({key: view[key] for key in ALWAYS if key in view})
    out["patch"] = True
    if gone:
        out["gone"] = gone
    if edits:
        out["edits"] = edits
    return out


def _patch(new: dict[str, Any], old: dict[str, Any], path: list[str],
           gone: list[list[str]], edits: list[list[Any]]) -> dict[str, Any]:
    gone += [[*path, key] for key in old if key not in new]
    out: dict[str, Any] = {}
    for key, value in new.items():
        if key in old and value == old[key]:
            continue
        before = old.get(key)
        if isinstance(value, dict) and isinstance(before, dict):
            if not _in_order(before, value):
                edits.append(["set", [*path, key], value])     # a patch would merge
                continue
            inner = _patch(value, before, [*path, key], gone, edits)
            if inner:
                out[key] = inner
        elif isinstance(value, list) and isinstance(before, list):
            mine = _list_edits(before, value, [*path, key])
            if len(encode(mine)) < len(encode(value)):
                edits += mine
            else:
                out[key] = value
        else:
            out[key] = value
    return out


def _in_order(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether patching ``old`` gives ``new``'s keys in ``new``'s order (a patched
    object keeps its keys' places and adds new keys last): pages draw some choices in
    the order of their keys, so an object whose order would differ is set whole."""
    kept = [key for key in old if key in new]
    return list(new) == kept + [key for key in new if key not in old]


def _list_edits(old: list[Any], new: list[Any], path: list[Any]) -> list[list[Any]]:
    """The edits that make the list ``old`` at ``path`` into ``new``: splices where
    items came or went, and where items stand in for others of their kind (the same
    ``type`` of move, another pair of numbers) the items edited, whichever is shorter."""
    same = difflib.SequenceMatcher(None, [encode(x) for x in old], [encode(x) for x in new],
                                   autojunk=False)
    edits: list[list[Any]] = []
    for tag, i1, i2, j1, j2 in same.get_opcodes():
        if tag == "equal":
            continue
        splice = [["splice", path, j1, i2 - i1, new[j1:j2]]]
        if tag == "replace":
            kinds = difflib.SequenceMatcher(None, [_kind(x) for x in old[i1:i2]],
                                            [_kind(x) for x in new[j1:j2]], autojunk=False)
            paired: list[list[Any]] = []
            for how, a1, a2, b1, b2 in kinds.get_opcodes():
                if how == "equal":
                    for k in range(b2 - b1):
                        paired += _edits(old[i1 + a1 + k], new[j1 + b1 + k], [*path, j1 + b1 + k])
                else:
                    paired.append(["splice", path, j1 + b1, a2 - a1, new[j1 + b1:j1 + b2]])
            if len(encode(paired)) < len(encode(splice)):
                splice = paired
        edits += splice
    return edits


def _kind(item: Any) -> str:
    """What an item of a list is, for pairing it with one that stands for it."""
    if isinstance(item, dict):
        return f"move {item['type']}" if "type" in item else "object"
    return "list" if isinstance(item, list) else encode(item)


def _edits(old: Any, new: Any, path: list[Any]) -> list[list[Any]]:
    """The edits that make ``old`` at ``path`` (inside a list) into ``new``."""
    if isinstance(old, dict) and isinstance(new, dict) and _in_order(old, new):
        out: list[list[Any]] = [["del", [*path, key]] for key in old if key not in new]
        for key, value in new.items():
            if key not in old:
                out.append(["set", [*path, key], value])
            elif old[key] != value:
                out += _edits(old[key], value, [*path, key])
        return out
    if isinstance(old, list) and isinstance(new, list):
        mine = _list_edits(old, new, path)
        if len(encode(mine)) < len(encode(new)):
            return mine
    return [["set", path, new]]


def patched(view: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    """The view a page has after ``event`` (what web/static/game.js does)."""
    if not event.get("patch"):
        return event
    parts = {k: v for k, v in event.items() if k not in ("patch", "gone", "edits", "on")}
    out = _apply(view, parts)
    for kind, path, *what in event.get("edits", []):
        parent = _copied(out, path[:-1])
        if kind == "splice":
            index, remove, items = what
            parent[path[-1]] = [*parent[path[-1]][:index], *items,
                                *parent[path[-1]][index + remove:]]
        elif kind == "set":
            parent[path[-1]] = what[0]
        else:
            del parent[path[-1]]
    for path in event.get("gone", []):
        _copied(out, path[:-1]).pop(path[-1], None)
    return out


def _apply(old: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    out = dict(old)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(old.get(key), dict):
            out[key] = _apply(old[key], value)
        else:
            out[key] = value
    return out


def _copied(view: dict[str, Any], path: list[Any]) -> Any:
    """The object or list at ``path`` in ``view``, copied along the way (``view`` is
    already a copy), so editing it leaves the view the patch was applied to alone."""
    parent: Any = view
    for key in path:
        parent[key] = dict(parent[key]) if isinstance(parent[key], dict) else list(parent[key])
        parent = parent[key]
    return parent


def encode(view: Any) -> str:
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
