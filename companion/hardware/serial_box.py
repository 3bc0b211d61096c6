"""The ``serial`` backend: the USB clapper box, spoken to with pyserial.

``serial_for_url`` opens the box, so a device path (``/dev/ttyACM0``), ``loop://``,
``socket://host:port`` and ``hwgrep://2e8a`` all work. Each connection starts with a
handshake (``HELLO`` -> ``READY clapperbox 1.x``); what the box sent before its READY
(MicroPython's USB serial hands over up to 256 bytes it kept while no host had the port
open) is skipped. A supervisor thread sends ``PING`` every ``heartbeat_s``; a box that
falls silent (only ``PONG`` and the box's own lines count: a box crashed to the REPL
echoes what it is sent), or a cable that is pulled, makes it reconnect every
``reconnect_s`` until the box is back, and a search that was running is sent again with
the time the host still counts (the host keeps the deadline too, so a dropped box never
loses the turn). The box keeps time itself and claps on its own.

With ``keep_trying`` (the service) a box that is missing or silent at start is waited
for the same way; only a device that is not a clapper box, or runs firmware of another
major version, is refused outright (:class:`WrongDevice`). The words of the protocol, both
ways, are :mod:`firmware.protocol`'s.
"""

from __future__ import annotations

import logging
import threading
import time
from enum import StrEnum
from typing import Any

import serial
from serial.threaded import Protocol, ReaderThread

from companion.hardware.backend import Backend
from companion.hardware.config import HardwareConfig, HardwareError
from companion.hardware.timer import HOLD
from firmware import protocol

log = logging.getLogger(__name__)

SILENCE_BEATS = 3  # heartbeats without a line before the box counts as gone
REPL_SIGNS = (">>>", "Traceback (most recent call last)", "MicroPython v")


class WrongDevice(HardwareError):
    """The port answers, but not as a clapper box of a firmware this host speaks."""


class Link(StrEnum):
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    CLOSED = "closed"


def handshake(port: serial.SerialBase, url: str, timeout: float) -> str:
    """Say HELLO and wait for READY, skipping what is not the protocol; the firmware
    version. Raises :class:`WrongDevice` when something else answers, and
    :class:`HardwareError` when nothing does (or a box sits at its Python prompt)."""
    port.reset_input_buffer()
    port.write(protocol.line(protocol.HELLO).encode() + b"\n")
    lines = protocol.LineBuffer(protocol.REPLIES, protocol.parse_reply)
    heard: list[str] = []
    box_like = False
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        # a line at a time: what follows READY stays for the reader thread
        for item in lines.feed(port.read_until(b"\n", protocol.MAX_LINE + 2)):
            text = item if isinstance(item, str) else item.raw.decode("ascii", "replace")
            try:
                if not isinstance(item, str):
                    raise item
                reply, value = protocol.parse_reply(text)
            except protocol.ProtocolError:
                heard.append(text.strip())
                continue
            if reply != protocol.READY:
                box_like = True  # a box mid-search, or a press: READY is still to come
                continue
            name, version = value
            if name != protocol.NAME:
                raise WrongDevice(f"{url} is not a clapper box: it answered {text!r} "
                                  f"(expected 'READY {protocol.NAME} {protocol.MAJOR}.x')")
            if version.split(".")[0] != protocol.MAJOR:
                raise WrongDevice(
                    f"the clapper box at {url} runs firmware {version}, this companion "
                    f"speaks {protocol.MAJOR}.x: copy firmware/ to the Pico again "
                    "(hardware.md, 'Flashing the Pico')")
            return str(version)
    said = [h for h in [*heard, lines.partial.decode("ascii", "replace")] if h.strip()]
    if any(sign in h for h in said for sign in REPL_SIGNS):
        raise HardwareError(f"the clapper box at {url} is at its Python prompt (the REPL): "
                            "its firmware is not running; unplug it and plug it in again "
                            "without holding STOP (hardware.md, 'Flashing the Pico')")
    if said and not box_like:
        raise WrongDevice(f"{url} is not a clapper box: it answered {said[-1]!r} to HELLO "
                          f"(expected 'READY {protocol.NAME} {protocol.MAJOR}.x')")
    raise HardwareError(f"no answer from {url} within {timeout:g} s: is it the clapper box, "
                        "with its firmware installed (hardware.md, 'Flashing the Pico')?")


class _Lines(Protocol):
    """The box's lines, cut by the protocol's own line buffer, to one backend."""

    def __init__(self, backend: SerialBackend) -> None:
        self.backend = backend
        self.buffer = protocol.LineBuffer(protocol.REPLIES, protocol.parse_reply)
        self.transport: ReaderThread | None = None

    def connection_made(self, transport: ReaderThread) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        skipped = self.buffer.skipped
        items = self.buffer.feed(data)
        if self.buffer.skipped > skipped:  # said first: the line after it may act at once
            self.backend._complain(
                f"the clapper box at {self.backend.url} sent "
                f"{self.buffer.skipped - skipped} bytes of noise before a line (loose cable "
                "or wrong baud rate?)")
        for item in items:
            if isinstance(item, protocol.ProtocolError):
                self.backend._complain(
                    f"the clapper box at {self.backend.url} sent {item.raw[:80]!r}, which is "
                    f"not part of its protocol ({item}: loose cable or wrong baud rate?)")
            else:
                self.backend._line(item)

    def write_line(self, text: str) -> None:
        assert self.transport is not None
        self.transport.write(text.encode("ascii") + b"\n")

    def connection_lost(self, exc: BaseException | None) -> None:
        self.backend._lost(self, exc)


class _Reader(ReaderThread):
    """pyserial's reader thread, also reporting the ``OSError`` that ``in_waiting``
    raises when a USB device or pty disappears (pyserial lets that one escape)."""

    def run(self) -> None:
        try:
            super().run()
        except OSError as err:
            self.alive = False
            self.protocol.connection_lost(err)


class SerialBackend(Backend):
    """The clapper box at ``url``. Opening checks the box and raises
    :class:`HardwareError` naming the port when it cannot be used; with ``keep_trying``
    only :class:`WrongDevice`, and a box not there yet is waited for."""

    name = "serial"

    def __init__(self, url: str, config: HardwareConfig, keep_trying: bool = False) -> None:
        super().__init__()
        self.url = url
        self.config = config
        self.firmware: str | None = None
        self.link = Link.RECONNECTING
        self.error: str | None = None
        self.reconnects = 0
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._wake = threading.Event()
        self._reader: ReaderThread | None = None
        self._lines: _Lines | None = None
        self._heard = time.monotonic()
        self._deadline: float | None = None  # host's own monotonic deadline
        self._box_running = False
        self._box_clapped = False  # the box's own clock ran out on this search
        try:
            self._connect()
        except WrongDevice:
            raise
        except HardwareError as err:
            if not keep_trying:
                raise
            self.error = f"{err}; trying again"
            log.warning("%s", self.error)
        self._supervisor = threading.Thread(target=self._supervise, daemon=True,
                                            name=f"clapper box {url}")
        self._supervisor.start()

    # Connection ---------------------------------------------------------------------

    def _connect(self) -> None:
        try:
            # exclusive: a second program (mpremote, another companion) gets a clear
            # error instead of stealing half the lines
            port = serial.serial_for_url(self.url, baudrate=self.config.baud, timeout=0.05,
                                         exclusive=True)
        except (serial.SerialException, OSError, ValueError) as err:
            raise HardwareError(f"cannot open the clapper box at {self.url}: {err}") from None
        try:
            version = handshake(port, self.url, self.config.reply_timeout_s)
            self._start_reader(port, version)
        except (serial.SerialException, OSError) as err:
            port.close()
            raise HardwareError(f"the clapper box at {self.url} stopped answering: "
                                f"{err}") from None
        except BaseException:
            port.close()  # and so unlocked for the next try
            raise
        log.info("clapper box %s connected (firmware %s)", self.url, version)

    def _start_reader(self, port: serial.SerialBase, version: str) -> None:
        # The line handler knows its backend before the first byte is read: a line
        # right after READY (a press, a box mid-search) is handled like any other.
        reader = _Reader(port, lambda: _Lines(self))
        reader.daemon = True
        with self._lock:
            if self.link is Link.CLOSED:  # closed while the handshake went on
                port.close()
                return
            reader.start()
            try:
                _, lines = reader.connect()
            except RuntimeError as err:  # the reader found the port gone as it started
                raise HardwareError(f"the clapper box at {self.url} went away as it "
                                    f"connected ({err})") from None
            assert isinstance(lines, _Lines)
            self.firmware, self.link, self.error = version, Link.CONNECTED, None
            self._heard = time.monotonic()
            self._box_running = False
            self._reader, self._lines = reader, lines
            self._changed.notify_all()
            left = self._ms_left()
            if left is not None:  # a search went on while the box was away
                self._send(protocol.line(protocol.START, left))

    def _lost(self, lines: _Lines, exc: BaseException | None) -> None:
        with self._lock:
            if lines is not self._lines or self.link is Link.CLOSED:
                return
            self._lines, self.link, self._box_running = None, Link.RECONNECTING, False
            self._changed.notify_all()
            self.error = f"the clapper box at {self.url} is gone ({exc or 'closed'}); " \
                         "reconnecting"
        log.warning("%s", self.error)
        self._wake.set()

    def _supervise(self) -> None:
        """Heartbeat while connected; reconnect attempts while not."""
        while True:
            connected = self.link is Link.CONNECTED
            self._wake.wait(self.config.heartbeat_s if connected else self.config.reconnect_s)
            self._wake.clear()
            if self.link is Link.CLOSED:
                return
            if self.link is Link.CONNECTED:
                if time.monotonic() - self._heard > SILENCE_BEATS * self.config.heartbeat_s:
                    self._drop("the clapper box stopped answering PING")
                else:
                    self._send(protocol.line(protocol.PING))
                continue
            self._drop(None)  # make sure the old port is closed before opening again
            try:
                self._connect()
                self.reconnects += 1
            except HardwareError as err:
                with self._lock:
                    if self.link is not Link.CLOSED:
                        self.error = f"{err}; trying again"
            except Exception:  # never let the supervisor die: it is the reconnect
                log.exception("reconnecting to the clapper box at %s failed", self.url)

    def _drop(self, reason: str | None) -> None:
        with self._lock:
            reader, self._reader, self._lines = self._reader, None, None
            if self.link is Link.CONNECTED:
                self.link = Link.RECONNECTING
            if reason:
                self.error = reason
            self._changed.notify_all()
        if reader is not None:
            reader.close()

    def _send(self, line: str) -> None:
        with self._lock:
            if self._lines is None:
                return
            try:
                self._lines.write_line(line)
            except (serial.SerialException, OSError) as err:
                lines = self._lines
                threading.Thread(target=self._lost, args=(lines, err), daemon=True).start()

    # Lines from the box ---------------------------------------------------------------

    def _line(self, line: str) -> None:
        try:
            reply, value = protocol.parse_reply(line)
        except protocol.ProtocolError:
            self._complain(f"the clapper box at {self.url} sent {line!r}, which is not "
                           "part of its protocol (loose cable or wrong baud rate?)")
            return
        self._heard = time.monotonic()  # only the box's own lines say it is alive
        if reply == protocol.BUTTON:
            self.on_button(str(value).lower())
        elif reply == protocol.HELD:
            self.on_button(HOLD)
        elif reply == protocol.RUNNING:
            self._box_running = True
        elif reply == protocol.EXPIRED:
            self._box_running, self._box_clapped = False, True
            self.on_expired()
        elif reply == protocol.STOPPED:
            self._box_running = False
        elif reply == protocol.READY:  # the box restarted on its own: tell it the search again
            left = self._ms_left()
            if left is not None:
                self._send(protocol.line(protocol.START, left))
        elif reply == protocol.ERR:
            self._complain(f"the clapper box refused a command: {value or 'no reason'}")

    def _complain(self, message: str) -> None:
        log.warning("%s", message)
        with self._lock:
            self.error = message
            self._changed.notify_all()

    def wait_link(self, link: Link | str, timeout: float) -> bool:
        """Block until the connection is in state ``link``; whether it got there."""
        with self._changed:
            return self._changed.wait_for(lambda: self.link == link, timeout)

    # Timer events -------------------------------------------------------------------

    def _ms_left(self) -> int | None:
        if self._deadline is None:
            return None
        left = round((self._deadline - time.monotonic()) * 1000)
        return left if left > 0 else None

    def running(self, ms_left: int, duration_ms: int) -> None:
        with self._lock:
            self._deadline = time.monotonic() + ms_left / 1000
            self._box_running, self._box_clapped = True, False
            self._send(protocol.line(protocol.START, ms_left))

    def halted(self, ms_left: int) -> None:
        with self._lock:
            self._deadline = None
            self._send(protocol.line(protocol.STOP))

    def clap(self) -> None:
        """The host's deadline passed: the box claps by itself unless it never heard of
        this search (it was away), in which case it is told to clap now; not when it
        has said EXPIRED already (its clap came first: the host's ran late)."""
        with self._lock:
            self._deadline = None
            if not self._box_running and not self._box_clapped:
                self._send(protocol.line(protocol.CLAP))

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {"url": self.url, "connection": self.link.value,
                    "firmware": self.firmware, "error": self.error,
                    "reconnects": self.reconnects}

    def close(self) -> None:
        with self._lock:
            if self.link is Link.CLOSED:
                return
            self.link = Link.CLOSED
            reader, self._reader, self._lines = self._reader, None, None
            self._changed.notify_all()
        self._wake.set()
        if reader is not None:
            reader.close()
        if threading.current_thread() is not self._supervisor:
            self._supervisor.join(5)
