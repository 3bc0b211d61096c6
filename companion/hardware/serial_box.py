"""The ``serial`` backend: the USB clapper box, spoken to with pyserial.

``serial_for_url`` opens the box, so a device path (``/dev/ttyACM0``), ``loop://``,
``socket://host:port`` and ``hwgrep://2e8a`` all work. Each connection starts with a
handshake (``HELLO`` -> ``READY clapperbox 1.x``). A supervisor thread sends ``PING``
every ``heartbeat_s``; a box that falls silent, or a cable that is pulled, makes it
reconnect every ``reconnect_s`` until the box is back, and a search that was running is
sent again with the time the host still counts (the host keeps the deadline too, so a
dropped box never loses the turn). The box keeps time itself and claps on its own.
"""

from __future__ import annotations

import logging
import threading
import time
from enum import StrEnum
from typing import Any

import serial
from serial.threaded import LineReader, ReaderThread

from companion.hardware.backend import Backend
from companion.hardware.config import HardwareConfig, HardwareError

log = logging.getLogger(__name__)

BOX_NAME = "clapperbox"
PROTOCOL_MAJOR = "1"
SILENCE_BEATS = 3  # heartbeats without a line before the box counts as gone
MAX_LINE_BYTES = 256  # the box's longest line is ~30 bytes: more is noise on the wire


class Link(StrEnum):
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    CLOSED = "closed"


def handshake(port: serial.SerialBase, url: str, timeout: float) -> str:
    """Say HELLO and check the answer; the firmware version, or :class:`HardwareError`
    saying what answered instead."""
    port.reset_input_buffer()
    port.write(b"HELLO\n")
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        raw = port.readline()
        if not raw:
            continue
        line = raw.decode("ascii", "replace").strip()
        words = line.split()
        if words[:1] == ["READY"]:
            if len(words) != 3 or words[1] != BOX_NAME:
                raise HardwareError(f"{url} is not a clapper box: it answered {line!r} "
                                    f"(expected 'READY {BOX_NAME} 1.x')")
            if words[2].split(".")[0] != PROTOCOL_MAJOR:
                raise HardwareError(
                    f"the clapper box at {url} runs firmware {words[2]}, this companion "
                    f"speaks {PROTOCOL_MAJOR}.x: copy firmware/ to the Pico again "
                    "(hardware.md, 'Flashing the Pico')")
            return words[2]
        if line and not _box_line(line):
            raise HardwareError(f"{url} is not a clapper box: it answered {line!r} to "
                                f"HELLO (expected 'READY {BOX_NAME} 1.x')")
    raise HardwareError(f"no answer from {url} within {timeout:g} s: is it the clapper box, "
                        "with its firmware installed (hardware.md, 'Flashing the Pico')?")


def _box_line(line: str) -> bool:
    """Whether a line is something a box says (a box mid-search may talk first)."""
    words = line.split()
    return bool(words) and words[0] in {"BUTTON", "HELD", "RUNNING", "EXPIRED",
                                        "STOPPED", "PONG", "ERR"}


class _Lines(LineReader):
    TERMINATOR = b"\n"
    ENCODING = "ascii"
    UNICODE_HANDLING = "replace"
    backend: SerialBackend

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if len(self.buffer) > MAX_LINE_BYTES:  # noise without a line end: never hoard it
            self.buffer.clear()
            self.backend._complain(
                f"the clapper box at {self.backend.url} sent more than {MAX_LINE_BYTES} "
                "bytes without a line end (loose cable or wrong baud rate?)")

    def handle_line(self, line: str) -> None:
        if len(line) > MAX_LINE_BYTES:
            self.backend._complain(
                f"the clapper box at {self.backend.url} sent a line of {len(line)} bytes, "
                "far longer than any in its protocol (loose cable or wrong baud rate?)")
            return
        self.backend._line(line.strip("\r"))

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
    :class:`HardwareError` naming the port when it cannot be used."""

    name = "serial"

    def __init__(self, url: str, config: HardwareConfig) -> None:
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
        self._connect()
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
        except (serial.SerialException, OSError) as err:
            port.close()
            raise HardwareError(f"the clapper box at {self.url} stopped answering: "
                                f"{err}") from None
        except BaseException:
            port.close()
            raise
        reader = _Reader(port, _Lines)
        reader.daemon = True
        with self._lock:
            if self.link is Link.CLOSED:  # closed while the handshake went on
                port.close()
                return
            self.firmware, self.link, self.error = version, Link.CONNECTED, None
            self._changed.notify_all()
            self._heard = time.monotonic()
            self._box_running = False
            self._reader = reader
            reader.start()
            _, lines = reader.connect()
            assert isinstance(lines, _Lines)
            lines.backend = self
            self._lines = lines
            left = self._ms_left()
            if left is not None:  # a search went on while the box was away
                self._send(f"START {left}")
        log.info("clapper box %s connected (firmware %s)", self.url, version)

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
                    self._send("PING")
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
        self._heard = time.monotonic()
        words = line.split()
        head = words[0] if words else ""
        if head == "BUTTON" and len(words) == 2 and words[1] in ("START", "STOP", "NEXT"):
            self.on_button(words[1].lower())
        elif words == ["HELD", "NEXT"]:
            self.on_button("hold")
        elif head == "RUNNING" and len(words) == 2 and words[1].isdigit():
            self._box_running = True
        elif words == ["EXPIRED"]:
            self._box_running = False
            self.on_expired()
        elif head == "STOPPED":
            self._box_running = False
        elif words == ["PONG"]:
            pass
        elif head == "READY":  # the box restarted on its own: tell it the search again
            left = self._ms_left()
            if left is not None:
                self._send(f"START {left}")
        elif head == "ERR":
            self._complain(f"the clapper box refused a command: {line[4:] or 'no reason'}")
        else:
            self._complain(f"the clapper box at {self.url} sent {line!r}, which is not "
                           "part of its protocol (loose cable or wrong baud rate?)")

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
            self._box_running = True
            self._send(f"START {ms_left}")

    def halted(self, ms_left: int) -> None:
        with self._lock:
            self._deadline = None
            self._send("STOP")

    def clap(self) -> None:
        """The host's deadline passed: the box claps by itself unless it never heard of
        this search (it was away), in which case it is told to clap now."""
        with self._lock:
            self._deadline = None
            if not self._box_running:
                self._send("CLAP")

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
