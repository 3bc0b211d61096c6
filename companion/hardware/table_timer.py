"""The timer belongs to the table: buttons and expiry become actions of a Dr. Shark game.

START begins the search of the current player in the most recently active unfinished
Dr. Shark session (``start_search``); expiry logs ``time_up``; STOP logs ``stop``; a
short NEXT logs ``end_turn``; NEXT held for ``hold_s`` undoes the last action. The
dashboard's own ``start_search`` (or an undo) moves the timer the same way, because the
timer follows the session's log rather than the buttons.

One worker thread owns the timing and every call into the backend, so the clapper fires
from the thread that watches the deadline. Table calls are never made while the timer's
lock is held (the table calls back into the timer under its own lock).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.engine import IllegalAction
from companion.hardware.backend import Backend
from companion.hardware.clock import Clock
from companion.hardware.config import HardwareConfig
from companion.hardware.timer import ACTIVE, Beat, Timer
from companion.store import Conflict, StoreError
from companion.table import NoSuchSession, Session, Table

log = logging.getLogger(__name__)

GAME = "drshark"
StatusListener = Callable[[dict[str, Any]], None]


class NoSearchGame(LookupError):
    """No unfinished Dr. Shark game for the timer to serve."""


def searching(session: Session) -> bool:
    """Whether a search is under way: the rules would accept ``time_up`` now (``apply``
    is pure, so asking costs nothing)."""
    try:
        session.game.apply(session.state, {"type": "time_up"})
    except IllegalAction:
        return False
    return True


class TableTimer:
    """The table's search timer on one backend. Use :func:`companion.hardware.open_timer`.

    ``status()`` is JSON-safe; ``listen(callback)`` calls ``callback(status)`` after every
    change of state (from the worker thread; keep it short).
    """

    def __init__(self, table: Table, backend: Backend, config: HardwareConfig | None = None,
                 clock: Clock | None = None) -> None:
        self.table = table
        self.backend = backend
        self.config = config or HardwareConfig()
        self.clock = clock or Clock()
        self.timer = Timer(self.config.duration_s, self.config.warning_s, self.clock,
                           self.config.bounce_ms / 1000)
        self._cond = threading.Condition(threading.RLock())
        self._effects: list[Callable[[], None]] = []
        self._listeners: list[StatusListener] = []
        self._session: int | None = None
        self._seen: dict[int, int] = {}
        self._error: str | None = None
        self._closed = False
        backend.attach(self._button, self._box_expired)
        self._unlisten = table.listen(self._table_changed)
        self._worker = threading.Thread(target=self._run, name="table-timer", daemon=True)
        self._worker.start()
        self._resume_interrupted_search()

    # What the dashboard calls ----------------------------------------------------

    def start(self) -> None:
        """Start the current player's search, as the START button does. Ignored while a
        search is timed; raises :class:`NoSearchGame` or ``IllegalAction`` (nothing
        logged) when the game cannot start a search now."""
        with self._cond:
            if self.timer.state in ACTIVE:
                return
        self.table.play(self.current_session(), {"type": "start_search"})

    def stop(self) -> None:
        """End the search early (``stop``), as the STOP button does."""
        with self._cond:
            sid = self._session if self.timer.state in ACTIVE else None
        self.table.play(sid if sid is not None else self.current_session(), {"type": "stop"})

    def next_turn(self) -> None:
        """Confirm the end of the turn (``end_turn``), as a short press of NEXT does."""
        self.table.play(self.current_session(), {"type": "end_turn"})

    def undo(self) -> None:
        """Take back the last action of the current game, as holding NEXT does."""
        if self.table.undo(self.current_session()) is None:
            raise IllegalAction("there is nothing to undo")

    def pause(self) -> None:
        """Freeze the countdown (the bag fell over); the search goes on after resume."""
        with self._cond:
            if self.timer.pause():
                self._halted()

    def resume(self) -> None:
        with self._cond:
            if self.timer.resume():
                self._running()

    def status(self) -> dict[str, Any]:
        with self._cond:
            return {
                "state": self.timer.state.value,
                "ms_left": self.timer.ms_left(),
                "duration_ms": self.timer.duration_ms,
                "warning_ms": self.timer.warning_ms,
                "session": self._session,
                "backend": self.backend.name,
                "error": self._error,
                "device": self.backend.status(),
            }

    def listen(self, callback: StatusListener) -> Callable[[], None]:
        with self._cond:
            self._listeners.append(callback)

        def remove() -> None:
            with self._cond:
                if callback in self._listeners:
                    self._listeners.remove(callback)
        return remove

    def current_session(self) -> int:
        """The most recently active unfinished Dr. Shark session."""
        for row in self.table.list():
            if row.game == GAME and not row.over:
                return row.id
        raise NoSearchGame("no Dr. Shark game is being played: start one on the dashboard")

    def close(self) -> None:
        """Stop the worker, release the hardware (the clapper is left off). Safe twice."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        self._unlisten()
        if threading.current_thread() is not self._worker:
            self._worker.join(5)
        self.backend.close()

    def __enter__(self) -> TableTimer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _resume_interrupted_search(self) -> None:
        """After a restart in the middle of a search, count down what is left of it
        (from the time ``start_search`` was logged); a search whose time ran out while
        the service was down is left for the table to end."""
        try:
            sid = self.current_session()
            session = self.table.get(sid)
        except (NoSearchGame, NoSuchSession, StoreError):
            return
        if not searching(session):
            return
        active = [e for e in self.table.store.history(sid) if not e.undone]
        started = next((e for e in reversed(active) if e.action.get("type") == "start_search"),
                       None)
        if started is None:
            return
        left = self.config.duration_s - (time.time() - started.at)
        if left <= 0:
            return
        with self._cond:
            self._session = sid
            self._seen[sid] = session.seq
            self.timer.start(left)
            self._running()

    # Buttons and the box ---------------------------------------------------------

    def _button(self, name: str) -> None:
        """A press reported by the backend (from its own thread)."""
        try:
            if name == "hold":
                self.undo()
                return
            with self._cond:
                if not self.timer.press(name):
                    return
                if name == "start" and self.timer.state in ACTIVE:
                    return
            {"start": self.start, "stop": self.stop, "next": self.next_turn}[name]()
        except (IllegalAction, NoSearchGame, NoSuchSession, Conflict, StoreError) as err:
            self._refuse(str(err))

    def _box_expired(self) -> None:
        """The box's own clock ran out (it has already clapped)."""
        with self._cond:
            if self.timer.expire():
                self._expired(clap=False)

    # The log moves the timer -----------------------------------------------------

    def _table_changed(self, sid: int, seq: int) -> None:
        try:
            session = self.table.get(sid)
        except NoSuchSession:
            return
        if session.game.name != GAME:
            return
        with self._cond:
            previous = self._seen.get(sid)
            self._seen[sid] = seq
            grew = previous is None or seq > previous
            last = session.actions[-1] if session.actions else None
            if (grew and last is not None and last.get("type") == "start_search"
                    and self.timer.state not in ACTIVE):
                self._session = sid
                self._error = None
                self.timer.start()
                self._running()
            elif (sid == self._session and self.timer.state in ACTIVE
                  and not searching(session)):
                # A stop, a shark, a finished search method, or an undo of start_search.
                (self.timer.stop if grew else self.timer.cancel)()
                self._halted()

    # Effects: queued under the lock, carried out by the worker -------------------

    def _queue(self, effect: Callable[[], None]) -> None:
        self._effects.append(effect)
        self._cond.notify_all()

    def _running(self) -> None:
        ms, total = self.timer.ms_left(), self.timer.duration_ms
        self._queue(lambda: self.backend.running(ms, total))
        self._queue_notify()

    def _halted(self) -> None:
        ms = self.timer.ms_left()
        self._queue(lambda: self.backend.halted(ms))
        self._queue_notify()

    def _expired(self, clap: bool) -> None:
        sid = self._session
        if clap:
            self._queue(self.backend.clap)
        if sid is not None:
            self._queue(lambda: self._log_time_up(sid))
        self._queue_notify()

    def _refuse(self, message: str) -> None:
        log.info("timer: %s", message)
        with self._cond:
            self._error = message
            self._queue(lambda: self.backend.refused(message))
            self._queue_notify()

    def _log_time_up(self, sid: int) -> None:
        try:
            self.table.play(sid, {"type": "time_up"})
        except (IllegalAction, NoSuchSession, Conflict, StoreError) as err:
            # The search ended some other way a moment earlier: nothing to log.
            log.info("timer: time_up not logged in game %s: %s", sid, err)

    def _queue_notify(self) -> None:
        # The status as of now: the worker may have moved on by the time it tells.
        status = self.status()
        self._queue(lambda: self._notify(status))

    def _notify(self, status: dict[str, Any]) -> None:
        with self._cond:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(status)
            except Exception:
                log.exception("timer listener failed")

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and not self._effects:
                    due = self.timer.next_due()
                    if due is not None and self.clock() >= due:
                        break
                    self.clock.wait(self._cond, due)
                if self._closed:
                    return
                for beat in self.timer.poll():
                    self._beat(beat)
                effects, self._effects = self._effects, []
            for effect in effects:
                try:
                    effect()
                except Exception:
                    log.exception("timer hardware failed")

    def _beat(self, beat: Beat) -> None:
        if beat.kind == "expired":
            self._expired(clap=True)
        else:
            total = self.timer.duration_ms
            self._queue(lambda: self.backend.beat(beat, total))
