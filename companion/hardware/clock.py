"""Clocks the timer runs on: the real monotonic clock, and a fake one tests advance.

A clock tells the time (``clock()``, seconds) and lets a thread sleep on a condition until
a deadline or a notify, whichever comes first. With :class:`FakeClock` the sleeper wakes
when a test calls :meth:`FakeClock.advance` past its deadline, so tests never sleep.
"""

from __future__ import annotations

import threading
import time
import weakref


class Clock:
    """The real monotonic clock."""

    def __call__(self) -> float:
        return time.monotonic()

    def wait(self, cond: threading.Condition, deadline: float | None) -> None:
        """Wait on ``cond`` (held by the caller) until ``deadline`` or a notify."""
        if deadline is None:
            cond.wait()
        else:
            cond.wait(max(0.0, deadline - time.monotonic()))


class FakeClock(Clock):
    """A clock that only moves when told to: ``clock.advance(30)``."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self._lock = threading.Lock()
        self._sleepers: weakref.WeakSet[threading.Condition] = weakref.WeakSet()

    def __call__(self) -> float:
        return self.now

    def wait(self, cond: threading.Condition, deadline: float | None) -> None:
        with self._lock:
            self._sleepers.add(cond)
        if deadline is None or deadline > self.now:
            cond.wait()

    def advance(self, seconds: float) -> None:
        """Move time on and wake every sleeper so it can look at the new time."""
        with self._lock:
            self.now += seconds
            sleepers = list(self._sleepers)
        for cond in sleepers:
            with cond:
                cond.notify_all()
