"""A virtual clapper box: the firmware's own logic (:mod:`firmware.box`) on a host pty.

The host driver talks to it exactly as to the Pico, over a real pseudo-terminal. It
records when its solenoid and buzzer switch, and has a debug side for tests and for
trying things at a desk: :meth:`VirtualBox.press` a button, :meth:`unplug` (the pty
goes away, as when the cable is pulled) and :meth:`replug` (a fresh box on a new pty,
re-pointed from the same ``link`` path, as udev's ``/dev/clapperbox`` would be), send
:meth:`garbage`, or answer as another kind of device (``identity``).
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from pathlib import Path

from firmware import protocol
from firmware.box import Box


class VirtualParts:
    """The box's parts as records: ``(monotonic seconds, on)`` per switch."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.solenoid_log: list[tuple[float, bool]] = []
        self.buzzer_log: list[tuple[float, bool]] = []
        self.fraction = 0.0

    def _log(self, record: list[tuple[float, bool]], on: bool) -> None:
        with self.changed:
            if not record or record[-1][1] != on:
                record.append((time.monotonic(), on))
                self.changed.notify_all()

    def solenoid(self, on: bool) -> None:
        self._log(self.solenoid_log, on)

    def buzzer(self, on: bool) -> None:
        self._log(self.buzzer_log, on)

    def leds(self, fraction: float) -> None:
        self.fraction = fraction

    def claps(self) -> list[float]:
        """When the solenoid was energised, oldest first."""
        with self.changed:
            return [t for t, on in self.solenoid_log if on]

    def wait_claps(self, count: int, timeout: float = 5) -> list[float]:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.claps()) >= count, timeout), (
                f"the virtual clapper fired {len(self.claps())} times, not {count}")
            return self.claps()


class VirtualBox:
    """The firmware logic behind a pty; ``path`` is what the host opens."""

    def __init__(self, link: str | os.PathLike[str] | None = None, pulse_ms: int = 80,
                 hold_ms: int = 3000, identity: str | None = None) -> None:
        self.link = Path(link) if link is not None else None
        self.pulse_ms, self.hold_ms = pulse_ms, hold_ms
        self.identity = identity  # e.g. "OK" to play a modem that is not a clapper box
        self.parts = VirtualParts()
        self.received: list[str] = []  # every host line, for tests
        self.heard = threading.Condition()
        self.silent = False  # True: read but never answer (a hung box)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._plug()

    @property
    def path(self) -> str:
        return str(self.link) if self.link is not None else self.tty

    def _plug(self) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.tty = os.ttyname(self._slave)
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self.tty)
            tmp.replace(self.link)  # atomic re-point, as udev does
        self.box = Box(self.parts, pulse_ms=self.pulse_ms, hold_ms=self.hold_ms,
                       diff=_diff, add=_add)
        self._buttons: dict[str, int] = {}  # button -> monotonic ms to let go
        self._alive = True
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._serve, args=(self._master,),
                                        daemon=True, name=f"virtual box {self.tty}")
        self._thread.start()

    # Debug side ---------------------------------------------------------------------

    def press(self, button: str, ms: int = 50) -> None:
        """Hold ``button`` (START, STOP or NEXT) down for ``ms`` milliseconds."""
        if button not in protocol.BUTTONS:
            raise ValueError(f"the box has no {button} button")
        with self._lock:
            self._buttons[button] = _now() + ms
        self._poke()

    def garbage(self, data: bytes) -> None:
        """Send raw bytes to the host, as a loose wire would."""
        os.write(self._master, data)

    def wait_received(self, test: str, timeout: float = 5) -> None:
        """Block until the host has sent a line starting with ``test``."""
        with self.heard:
            assert self.heard.wait_for(
                lambda: any(r.startswith(test) for r in self.received), timeout), (
                f"the host never sent {test!r}; it sent {self.received}")

    def unplug(self) -> None:
        """The cable is pulled: the pty and the link go away."""
        with self._lock:
            self._alive = False
        self._poke()
        if self._thread is not None:
            self._thread.join(5)
        if self.link is not None:
            self.link.unlink(missing_ok=True)
        for fd in (self._master, self._slave):
            os.close(fd)

    def replug(self) -> None:
        """A fresh box (it lost power with the cable) on a new pty at the same link."""
        self._plug()

    def close(self) -> None:
        if self._alive:
            self.unplug()

    def __enter__(self) -> VirtualBox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # The firmware's main loop ---------------------------------------------------------

    def _poke(self) -> None:
        with contextlib.suppress(OSError):  # the loop has ended
            os.write(self._wake_w, b"x")

    def _serve(self, master: int) -> None:
        lines = protocol.LineBuffer(protocol.COMMANDS)
        try:
            while True:
                with self._lock:
                    if not self._alive:
                        return
                    releases = list(self._buttons.values())
                now = _now()
                wait = self.box.next_due(now)
                for at in releases:
                    wait = min(wait, max(0.0, at - now))
                if releases:
                    wait = min(wait, 5.0)  # read held buttons as often as the Pico does
                ready, _, _ = select.select([master, self._wake_r], [], [], wait / 1000)
                out: list[str] = []
                if self._wake_r in ready:
                    os.read(self._wake_r, 64)
                if master in ready:
                    try:
                        data = os.read(master, 1024)
                    except OSError:
                        return
                    for line in lines.feed(data):
                        self._heard(line)
                        if not self.silent:
                            out += self._answer(line, _now())
                now = _now()
                with self._lock:
                    levels = {b: at > now for b, at in self._buttons.items()}
                    self._buttons = {b: at for b, at in self._buttons.items() if at > now}
                for button, down in levels.items():
                    out += self.box.button(button, down, now)
                out += self.box.poll(_now())
                if out and not self.silent:
                    os.write(master, "".join(f"{o}\n" for o in out).encode())
        finally:
            self.box.safe()
            os.close(self._wake_r)
            os.close(self._wake_w)

    def _heard(self, line: object) -> None:
        with self.heard:
            self.received.append(str(line))
            self.heard.notify_all()

    def _answer(self, line: str | protocol.ProtocolError, now: int) -> list[str]:
        if self.identity is not None and line == "HELLO":
            return [self.identity]
        return list(self.box.receive(line, now))


def _now() -> int:
    """Whole milliseconds, as the Pico's ``ticks_ms`` (the protocol has no fractions)."""
    return time.monotonic_ns() // 1_000_000


def _diff(a: int, b: int) -> int:
    return a - b


def _add(a: int, b: int) -> int:
    return a + b
