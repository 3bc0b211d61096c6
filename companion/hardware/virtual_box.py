"""A virtual clapper box: the firmware's own logic (:mod:`firmware.box`) on a host pty.

The host driver talks to it exactly as to the Pico, over a real pseudo-terminal. It
records when its solenoid and buzzer switch, and has a debug side for tests and for
trying things at a desk: :meth:`VirtualBox.press` a button, :meth:`unplug` (the pty
goes away, as when the cable is pulled) and :meth:`replug` (a fresh box on a new pty,
re-pointed from the same ``link`` path, as udev's ``/dev/clapperbox`` would be), send
:meth:`garbage`, or answer as another kind of device (``identity``).

It also has the real Pico's quirks, for the host's tests and the clapper benchmark:
``buffered`` bytes handed over after the host opens the port (MicroPython's USB serial
keeps up to 256 bytes written while no host listened, and sends them after the host has
cleared its input), ``slow_ms`` before each read is handled (a busy box), and
:meth:`crash` to MicroPython's REPL (a firmware without the reset-on-exception, or a box
started in safe mode), which echoes every line and answers in tracebacks.
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
                 hold_ms: int = 3000, identity: str | None = None, buffered: bytes = b"",
                 slow_ms: int = 0) -> None:
        self.link = Path(link) if link is not None else None
        self.pulse_ms, self.hold_ms = pulse_ms, hold_ms
        self.identity = identity  # e.g. "OK" to play a modem that is not a clapper box
        self.parts = VirtualParts()
        self.received: list[str] = []  # every host line, for tests
        self.heard = threading.Condition()
        self.silent = False  # True: read but never answer (a hung box)
        self.buffered = buffered  # sent after the host's first bytes on each plug
        self.slow_ms = slow_ms
        self.repl = False  # crashed to MicroPython's prompt
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
        self._pressing: dict[str, int] = {}  # pressed, not yet read: ms to hold it
        self._alive = True
        self.repl = False
        self._kept = self.buffered
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
            self._pressing[button] = ms  # held from when the loop first reads it
        self._poke()

    def crash(self) -> None:
        """The firmware dies with a traceback and MicroPython's REPL takes the line:
        from now on host lines are echoed and answered with ``NameError``."""
        with self._lock:
            self.repl = True
        self.box.safe()
        os.write(self._master, REPL_BANNER)

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
                    if self._pressing:
                        releases.append(0)  # read the new press at once
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
                    if self.slow_ms:
                        time.sleep(self.slow_ms / 1000)
                    if self._kept:  # what the USB serial kept while no host listened
                        os.write(master, self._kept)
                        self._kept = b""
                    if self.repl:
                        self._echo(master, data)
                        continue
                    for line in lines.feed(data):
                        self._heard(line)
                        if not self.silent:
                            out += self._answer(line, _now())
                if self.repl:  # the firmware is dead: no buttons, no clock
                    continue
                now = _now()
                with self._lock:
                    self._buttons.update({b: now + ms for b, ms in self._pressing.items()})
                    self._pressing.clear()
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

    def _echo(self, master: int, data: bytes) -> None:
        """The REPL: echo, and a NameError for every line."""
        for line in data.split(b"\n")[:-1]:
            self._heard(line.decode("ascii", "replace"))
            word = line.strip().split(b" ")[0].decode("ascii", "replace")
            os.write(master, line + b"\r\n" + (
                b"Traceback (most recent call last):\r\n"
                b'  File "<stdin>", line 1, in <module>\r\n'
                b"NameError: name '" + word.encode() + b"' isn't defined\r\n>>> "))

    def _heard(self, line: object) -> None:
        with self.heard:
            self.received.append(str(line))
            self.heard.notify_all()

    def _answer(self, line: str | protocol.ProtocolError, now: int) -> list[str]:
        if self.identity is not None and line == "HELLO":
            return [self.identity]
        return list(self.box.receive(line, now))


REPL_BANNER = (b"Traceback (most recent call last):\r\n"
               b'  File "main.py", line 4, in <module>\r\n'
               b"RuntimeError: the firmware crashed\r\n"
               b"MicroPython v1.27.0 on 2026-01-01; Raspberry Pi Pico with RP2040\r\n"
               b'Type "help()" for more information.\r\n>>> ')


def _now() -> int:
    """Whole milliseconds, as the Pico's ``ticks_ms`` (the protocol has no fractions)."""
    return time.monotonic_ns() // 1_000_000


def _diff(a: int, b: int) -> int:
    return a - b


def _add(a: int, b: int) -> int:
    return a + b
