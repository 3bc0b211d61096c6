"""The timer belongs to the table: buttons and expiry become actions of a Dr. Shark game.

The timer is **bound** to one Dr. Shark game at a time (``status()["game"]``): the
hardware buttons act on it, and its countdown is that game's search. START begins the
search of its current player (``start_search``); expiry logs ``time_up``; STOP logs
``stop``; a short NEXT logs ``end_turn``; NEXT held for ``hold_s`` undoes the last action.

The binding moves when a page says so (``start(game)``, ``bind(game)``), when a search
starts in another game while the timer is free, and when a new Dr. Shark game is created
while the timer is free (a new game never shows the last game's countdown). Moving it off
a running search leaves that search open in its game's log; moving it back counts down
what is left of it. The timer follows each game's log, asking the game through the engine
protocol (``legal()``) whether a search is under way:

- a ``start_search`` logged anywhere (START, a page) starts the countdown;
- the search ending (stop, a shark, a method done) stops it; an undo of ``start_search``
  takes it back to idle;
- an undo that opens a search again (of ``time_up`` or ``stop``) leaves the timer
  *paused* with what was left when it ended: START resumes it, STOP ends the search.

With a ``state_file`` the binding and the countdown survive a restart of the service: the
deadline is kept on the monotonic clock with the boot it belongs to, never on the wall
clock (a Pi has no real-time clock, and NTP moves it at boot). After a reboot, or without
the file, a search found under way is paused with its whole time.

One worker thread owns the timing and every call into the backend, so the clapper fires
from the thread that watches the deadline. Table calls are never made while the timer's
lock is held (the table calls back into the timer under its own lock).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.engine import BrokenRule, IllegalAction
from companion.hardware.backend import Backend
from companion.hardware.clock import Clock
from companion.hardware.config import HardwareConfig
from companion.hardware.timer import ACTIVE, HOLD, NEXT, START, STOP, Beat, Timer, TimerState
from companion.store import Conflict, StoreError
from companion.table import NoSuchSession, Session, Table

log = logging.getLogger(__name__)

GAME = "drshark"
StatusListener = Callable[[dict[str, Any]], None]
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


class NoSearchGame(LookupError):
    """No unfinished Dr. Shark game for the timer to serve (or not the one asked for)."""


def searching(session: Session) -> bool:
    """Whether a search is under way in ``session``: the rules accept ``time_up`` now."""
    return any(leg.type == "time_up" for leg in session.game.legal(session.state))


def boot_id() -> str | None:
    """This boot of the machine (the monotonic clock counts from it), if the OS says."""
    try:
        return BOOT_ID.read_text().strip() or None
    except OSError:
        return None


class TableTimer:
    """The table's search timer on one backend. Use :func:`companion.hardware.open_timer`.

    ``status()`` is JSON-safe; ``listen(callback)`` calls ``callback(status)`` after every
    change of state (from the worker thread; keep it short).
    """

    def __init__(self, table: Table, backend: Backend, config: HardwareConfig | None = None,
                 clock: Clock | None = None, state_file: Path | None = None) -> None:
        self.table = table
        self.backend = backend
        self.config = config or HardwareConfig()
        self.clock = clock or Clock()
        self.state_file = state_file
        self.timer = Timer(self.config.duration_s, self.config.warning_s, self.clock,
                           self.config.bounce_ms / 1000)
        self._cond = threading.Condition(threading.RLock())
        self._effects: list[Callable[[], None]] = []
        self._listeners: list[StatusListener] = []
        self._bound: int | None = None  # the game the timer serves; its state is `timer`
        # Open searches of games the timer is not timing: ("running", clock deadline) or
        # ("paused", ms left), so that binding back counts down the rest.
        self._away: dict[int, tuple[str, float]] = {}
        self._boot = boot_id()
        self._seen: dict[int, int] = {}
        self._error: str | None = None
        self._closed = False
        backend.attach(self._button, self._box_expired)
        self._worker = threading.Thread(target=self._run, name="table-timer", daemon=True)
        self._worker.start()
        self._restore()
        self._unlisten = table.listen(self._table_changed)

    # What the dashboard calls ----------------------------------------------------

    def start(self, game: int | None = None) -> None:
        """Start the search of the current player of ``game`` (bound to it first), or
        of the bound game, as the START button does; a paused search resumes. Ignored
        while the search is timed; raises :class:`NoSearchGame` or ``IllegalAction``
        (nothing logged) when the game cannot start a search now."""
        if game is not None:
            self.bind(game)
        sid = self.game()
        with self._cond:
            if sid == self._bound and self.timer.state is TimerState.PAUSED:
                self.resume()
                return
            if sid == self._bound and self.timer.state in ACTIVE:
                return
        self.table.play(sid, {"type": "start_search"})

    def stop(self) -> None:
        """End the search early (``stop``), as the STOP button does."""
        self.table.play(self.game(), {"type": "stop"})

    def next_turn(self) -> None:
        """Confirm the end of the turn (``end_turn``), as a short press of NEXT does."""
        self.table.play(self.game(), {"type": "end_turn"})

    def undo(self) -> None:
        """Take back the last action of the bound game, as holding NEXT does; with none
        logged yet, a :class:`BrokenRule` refusal (kind ``rule``: the request is readable,
        the game's state forbids it)."""
        if self.table.undo(self.game()) is None:
            raise BrokenRule("there is nothing to undo: no action is logged in this game yet")

    def pause(self) -> None:
        """Freeze the countdown (the bag fell over); the search goes on after resume."""
        with self._cond:
            if self.timer.pause():
                self._halted()

    def resume(self) -> None:
        with self._cond:
            if self.timer.resume():
                self._running()

    def bind(self, game: int) -> None:
        """Serve ``game`` from now on (the buttons act on it). A search under way there
        is counted down from when it started; the previous game's countdown stops
        (its search stays open in its log). Raises :class:`NoSearchGame` naming why."""
        session = self._dr_shark(game)
        open_search = searching(session)
        with self._cond:
            if game == self._bound:
                return
            self._move(game, open_search, session.seq)

    def game(self) -> int:
        """The game the buttons act on: the bound game, or else the most recently
        active unfinished Dr. Shark game."""
        with self._cond:
            bound = self._bound
        if bound is not None:
            return bound
        return self.current_session()

    def status(self) -> dict[str, Any]:
        with self._cond:
            return {
                "game": self._bound,
                "state": self.timer.state.value,
                "ms_left": self.timer.ms_left(),
                "duration_ms": self.timer.duration_ms,
                "warning_ms": self.timer.warning_ms,
                "session": self._bound,  # the older name of "game"
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
        """Stop the worker, release the hardware (the clapper is left off). Safe twice.
        The state file is kept: a search under way goes on after a restart."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            saved = self._snapshot()
            self._cond.notify_all()
        self._unlisten()
        if threading.current_thread() is not self._worker:
            self._worker.join(5)
        _write_state(self.state_file, saved)
        self.backend.close()

    def __enter__(self) -> TableTimer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Binding -----------------------------------------------------------------------

    def _dr_shark(self, game: object) -> Session:
        if isinstance(game, bool) or not isinstance(game, int):
            raise NoSearchGame(f"the timer binds to a game id, not {game!r}")
        try:
            session = self.table.get(game)
        except NoSuchSession:
            raise NoSearchGame(f"there is no game {game}") from None
        if session.game.name != GAME:
            raise NoSearchGame(f"game {game} is not Dr. Shark: only Dr. Shark has a timer")
        if session.game.is_over(session.state):
            raise NoSearchGame(f"game {game} is over: start a new Dr. Shark game")
        return session

    def _move(self, game: int | None, open_search: bool, seq: int) -> None:
        """Bind to ``game`` (lock held): stop timing the previous game, take up this
        game's open search from when it started (paused when that is not known)."""
        old = self._bound
        if old is not None and self.timer.state is TimerState.RUNNING:
            self._away[old] = ("running", self.timer.deadline or 0.0)
        elif old is not None and self.timer.state is TimerState.PAUSED:
            self._away[old] = ("paused", self.timer.ms_left())
        if self.timer.state in ACTIVE:
            self.timer.cancel()
            self._halted()
        self.timer.reset()
        self._bound, self._error = game, None
        if game is not None:
            self._seen[game] = seq
        kind, at = self._away.pop(game, ("", 0.0)) if game is not None else ("", 0.0)
        if open_search and kind == "running":
            self.timer.start(max(0.0, at - self.clock()))
            self._running()
        elif open_search and kind == "paused":
            self.timer.pause_at(round(at))
            self._halted()
        elif open_search:
            self.timer.pause_at(self.timer.duration_ms)
            self._error = ("this search began before the timer could see it: START counts "
                           "down a whole search, STOP ends it")
            self._halted()
        else:
            self._queue_notify()

    def _restore(self) -> None:
        """The binding and countdown before a restart, from the state file."""
        saved = _read_state(self.state_file)
        session = None
        for pick in (lambda: saved.get("game"), self.current_session):
            try:
                session = self._dr_shark(pick())
                break
            except NoSearchGame:
                continue
        if session is None:
            return
        open_search = searching(session)
        deadline, left = saved.get("deadline"), saved.get("left_ms")
        with self._cond:
            if open_search and saved.get("game") == session.id:
                if (saved.get("state") == "running" and isinstance(deadline, int | float)
                        and self._boot is not None and saved.get("boot") == self._boot):
                    self._away[session.id] = ("running", deadline)
                elif saved.get("state") == "paused" and isinstance(left, int):
                    self._away[session.id] = ("paused", left)
            self._move(session.id, open_search, session.seq)

    # Buttons and the box ---------------------------------------------------------

    def _button(self, name: str) -> None:
        """A press reported by the backend (from its own thread)."""
        try:
            if name == HOLD:
                self.undo()
                return
            with self._cond:
                if not self.timer.press(name):
                    return
            {START: self.start, STOP: self.stop, NEXT: self.next_turn}[name]()
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
        open_search = searching(session)
        over = session.game.is_over(session.state)
        with self._cond:
            previous = self._seen.get(sid)
            self._seen[sid] = seq
            grew = previous is None or seq > previous
            last = session.actions[-1] if session.actions else None
            started = grew and last is not None and last.get("type") == "start_search"
            free = self.timer.state not in ACTIVE
            if sid != self._bound:
                if started:
                    self._away[sid] = ("running", self.clock() + self.config.duration_s)
                elif not open_search:
                    self._away.pop(sid, None)
                if free and (started or (previous is None and seq == 0)):
                    self._move(sid, open_search, seq)  # a search began, or a new game
                return
            if over:
                self._move(None, False, seq)
            elif started and free:
                self.timer.start()
                self._running()
            elif not free and not open_search:
                # A stop, a shark, a finished search method, or an undo of start_search.
                (self.timer.stop if grew else self.timer.cancel)()
                self._halted()
            elif free and open_search and not grew:
                # An undo opened the search again (of time_up or stop): paused, with
                # what was left when it ended.
                self.timer.pause_at(self.timer.ms_left())
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
        sid = self._bound
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
        saved = self._snapshot()
        self._queue(lambda: self._notify(status, saved))

    def _snapshot(self) -> dict[str, Any]:
        deadline = self.timer.deadline
        return {"boot": self._boot, "game": self._bound, "state": self.timer.state.value,
                "deadline": deadline, "left_ms": self.timer.ms_left()}

    def _notify(self, status: dict[str, Any], saved: dict[str, Any]) -> None:
        _write_state(self.state_file, saved)
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


def _read_state(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_state(path: Path | None, saved: dict[str, Any]) -> None:
    if path is None:
        return
    tmp = path.with_name(path.name + ".new")
    try:
        tmp.write_text(json.dumps(saved) + "\n", "utf-8")
        os.replace(tmp, path)
    except OSError as err:
        log.warning("timer: cannot keep its state in %s: %s", path, err)
        with contextlib.suppress(OSError):
            tmp.unlink()
