"""A stand-in for MicroPython's ``machine`` module on a simulated clock, for the firmware
scenarios (:mod:`scenarios`). Plain Python: it runs under CPython and under MicroPython.

The clock is a ``ticks_ms`` counter that only moves when told (:func:`advance`), firing
the one-shot :class:`Timer` callbacks that fall due on the way, as the Pico's timer
interrupt would. :func:`reset` raises :class:`Reset` (the real one never returns).
Under MicroPython ``ticks_add`` and ``ticks_diff`` are the real ``time`` functions; under
CPython, the same arithmetic as MicroPython's documentation gives (period 2**30).
"""

import time

PERIOD = 1 << 30
_now = [0]
_timers = []
board = {}  # GP number -> Pin
log = []  # (ticks, "GP16=1") for every output change

ticks_add = getattr(time, "ticks_add", None)
ticks_diff = getattr(time, "ticks_diff", None)
if ticks_add is None:
    def ticks_add(ticks, delta):
        return (ticks + delta) % PERIOD

    def ticks_diff(ticks1, ticks2):
        return ((ticks1 - ticks2 + PERIOD // 2) % PERIOD) - PERIOD // 2


def ticks_ms():
    return _now[0]


def set_ticks(ticks):
    _now[0] = ticks % PERIOD


def advance(ms):
    """Move the clock ``ms`` on, firing the timers that fall due on the way in order."""
    target = ticks_add(_now[0], ms)
    while True:
        due = [t for t in _timers if ticks_diff(target, t.due) >= 0]
        if not due:
            break
        first = due[0]
        for timer in due:
            if ticks_diff(timer.due, first.due) < 0:
                first = timer
        _now[0] = first.due
        first.deinit()
        first.callback(first)
    _now[0] = target


class Reset(BaseException):
    """``machine.reset()`` was called."""


def reset():
    raise Reset()


class Pin:
    IN, OUT, PULL_UP = "in", "out", "pull_up"

    def __init__(self, number, mode, pull=None, value=None):
        self.number, self.mode = number, mode
        self.level = 1 if pull == Pin.PULL_UP else 0
        board[number] = self
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            return self.level
        if self.mode != Pin.OUT:
            raise ValueError("GP" + str(self.number) + " is an input")
        if v != self.level or not any(entry[1].startswith("GP" + str(self.number) + "=")
                                      for entry in log):
            log.append((_now[0], "GP" + str(self.number) + "=" + str(v)))
        self.level = v
        return v


class Timer:
    ONE_SHOT, PERIODIC = 0, 1

    def __init__(self, id=-1):
        self.due = None
        self.callback = None

    def init(self, mode=PERIODIC, period=-1, callback=None, hard=False):
        if mode != Timer.ONE_SHOT:
            raise ValueError("the firmware only uses one-shot timers")
        self.callback = callback
        self.due = ticks_add(_now[0], period)
        if self not in _timers:
            _timers.append(self)

    def deinit(self):
        self.due = None
        if self in _timers:
            _timers.remove(self)


feeds = [0]  # watchdog feeds since the last WDT was made


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        feeds[0] = 0

    def feed(self):
        feeds[0] += 1
