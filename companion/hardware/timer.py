"""The search timer of Dr. Shark: one state machine for every backend.

::

    idle ──start──▶ running ──(time runs out)──▶ expired
                    │   ▲  └──stop──▶ stopped
               pause│   │resume
                    ▼   │
                    paused ──stop──▶ stopped

``start`` is accepted from idle, expired and stopped (a new search); ``cancel`` takes a
running or paused timer back to idle (the search was undone). The machine is passive: it
reads the time from its clock when asked, and :meth:`Timer.poll` returns what became due
since the last poll: a ``tick`` at every whole second left, a ``warning`` at each of the
last ``warning_s`` seconds (the beep pattern before the clapper) and ``expired``.
:meth:`Timer.next_due` says when to poll next. Nothing here knows about pins or ports.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from firmware.protocol import BUTTONS as BOX_BUTTONS

# The buttons as the host names them (the protocol's, lower case), and NEXT held down.
BUTTONS = tuple(name.lower() for name in BOX_BUTTONS)
START, STOP, NEXT = BUTTONS
HOLD = "hold"


class TimerState(StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    PAUSED = "paused"
    EXPIRED = "expired"
    STOPPED = "stopped"


ACTIVE = frozenset({TimerState.RUNNING, TimerState.PAUSED})
"""States in which a search is being timed."""


@dataclass(frozen=True)
class Beat:
    """Something that became due: ``kind`` is ``tick``, ``warning`` or ``expired``."""

    kind: str
    ms_left: int


class Timer:
    """A countdown with a warning before the end, on a replaceable monotonic clock.

    >>> t = Timer(duration_s=30, clock=lambda: 0.0)
    >>> t.start(), t.state.value, t.ms_left()
    (True, 'running', 30000)
    """

    def __init__(self, duration_s: float = 30.0, warning_s: float = 3.0,
                 clock: Callable[[], float] | None = None, bounce_s: float = 0.2) -> None:
        if not 0 < duration_s <= 3600:
            raise ValueError(f"a search lasts up to 3600 seconds, not {duration_s}")
        if not 0 <= warning_s < duration_s:
            raise ValueError(f"the warning ({warning_s} s) must be shorter than the search")
        if clock is None:
            from companion.hardware.clock import Clock
            clock = Clock()
        self.clock = clock
        self.duration_ms = round(duration_s * 1000)
        self.warning_ms = round(warning_s * 1000)
        self.bounce_s = bounce_s
        self.state = TimerState.IDLE
        self._deadline = 0.0  # clock time of expiry while running
        self._left_ms = 0  # frozen ms left while paused, stopped or expired
        self._next_mark = 0  # the next whole-second mark (ms left) to report
        self._last_press: dict[str, float] = {}

    # Questions ---------------------------------------------------------------------

    def ms_left(self) -> int:
        if self.state is TimerState.RUNNING:
            return max(0, math.ceil((self._deadline - self.clock()) * 1000 - 1e-6))
        return self._left_ms

    @property
    def deadline(self) -> float | None:
        """Clock time at which the running search ends; ``None`` unless running."""
        return self._deadline if self.state is TimerState.RUNNING else None

    def next_due(self) -> float | None:
        """Clock time of the next beat, ``None`` when nothing is running."""
        if self.state is not TimerState.RUNNING:
            return None
        return self._deadline - self._next_mark / 1000

    # Buttons ------------------------------------------------------------------------

    def press(self, button: str) -> bool:
        """Whether a press of ``button`` counts: a second press of the same button within
        ``bounce_s`` is contact bounce or a double press and is ignored."""
        if button not in BUTTONS:
            raise ValueError(f"no button {button!r}; the buttons are {', '.join(BUTTONS)}")
        now = self.clock()
        last = self._last_press.get(button)
        if last is not None and now - last < self.bounce_s:
            return False
        self._last_press[button] = now
        return True

    # Changes: each returns whether it changed anything ------------------------------

    def start(self, duration_s: float | None = None) -> bool:
        if self.state in ACTIVE:
            return False
        ms = self.duration_ms if duration_s is None else round(duration_s * 1000)
        self._run(ms)
        return True

    def resume(self) -> bool:
        if self.state is not TimerState.PAUSED:
            return False
        self._run(self._left_ms, keep_marks=True)
        return True

    def pause(self) -> bool:
        if self.state is not TimerState.RUNNING:
            return False
        self._freeze(TimerState.PAUSED)
        return True

    def stop(self) -> bool:
        if self.state not in ACTIVE:
            return False
        self._freeze(TimerState.STOPPED)
        return True

    def cancel(self) -> bool:
        """Back to idle: the search being timed was taken back."""
        if self.state not in ACTIVE:
            return False
        self.state, self._left_ms = TimerState.IDLE, 0
        return True

    def reset(self) -> None:
        """Idle, whatever the state: the timer now serves another search."""
        self.state, self._left_ms = TimerState.IDLE, 0

    def pause_at(self, ms: int) -> None:
        """Paused with ``ms`` left: a search found under way without its countdown."""
        ms = max(0, min(ms, self.duration_ms))
        self.state, self._left_ms = TimerState.PAUSED, ms
        self._next_mark = (ms - 1) // 1000 * 1000

    def expire(self) -> bool:
        """End the search now (the clapper box reported its own expiry first)."""
        if self.state not in ACTIVE:
            return False
        self.state, self._left_ms = TimerState.EXPIRED, 0
        return True

    def poll(self) -> list[Beat]:
        """The beats that became due since the last poll (at most one tick or warning:
        a late poll reports only the latest mark, never a burst of beeps)."""
        if self.state is not TimerState.RUNNING:
            return []
        left = (self._deadline - self.clock()) * 1000
        if left <= 1e-6:
            self.expire()
            return [Beat("expired", 0)]
        if left > self._next_mark + 1e-6:
            return []
        mark = self._next_mark
        while self._next_mark > 0 and self._next_mark >= left - 1e-6:
            mark, self._next_mark = self._next_mark, self._next_mark - 1000
        kind = "warning" if mark <= self.warning_ms else "tick"
        return [Beat(kind, mark)]

    def _run(self, ms: int, keep_marks: bool = False) -> None:
        self.state = TimerState.RUNNING
        self._deadline = self.clock() + ms / 1000
        below = (ms - 1) // 1000 * 1000  # the largest whole second strictly below ms
        self._next_mark = min(self._next_mark, below) if keep_marks else below
        self._left_ms = ms

    def _freeze(self, state: TimerState) -> None:
        self._left_ms = self.ms_left()
        self.state = state
