"""Bad serial input into the host driver: random bytes, overlong lines, non-ASCII, partial
lines and CR/LF mixes are logged or ignored, and leave the game log and the timer alone.
Noise in front of a line is skipped (the line is the longest clean tail that starts with
a word of the protocol, hardware.md 'Serial protocol'), and said."""

from __future__ import annotations

import itertools
import logging
import random
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from companion.hardware import FakeClock, TableTimer, open_timer
from companion.hardware.serial_box import SerialBackend, _Lines
from companion.hardware.virtual_box import VirtualBox
from companion.table import Table
from tests.hardware.conftest import Waiter, log_types, new_game

# no heartbeat during the test: the only lines the host reads are the ones sent here
QUIET: dict[str, Any] = {"duration_s": 30, "heartbeat_s": 30, "reconnect_s": 0.05,
                         "reply_timeout_s": 0.5}
MAX_LINE = 64  # hardware.md: a line is at most 64 bytes
HEAD = re.compile(rb"(BUTTON|HELD|RUNNING|EXPIRED|STOPPED|PONG|READY|ERR)([ \t]|$)")
PRINTABLE = re.compile(rb"[\t\x20-\x7e]*")
VALID = re.compile(rb"(READY[ \t]+\S+[ \t]+\S+|BUTTON[ \t]+(START|STOP|NEXT)|HELD[ \t]+NEXT"
                   rb"|(RUNNING|STOPPED)[ \t]+[0-9]+|EXPIRED|PONG|ERR([ \t].*)?)[ \t]*")

PIECES = st.sampled_from([
    b"BUTTON", b"START", b"STOP", b"NEXT", b"HELD", b"RUNNING", b"EXPIRED", b"STOPPED",
    b"PONG", b"READY clapperbox 1.0", b"ERR", b"-5", b"12x", b"9" * 30, b"\xc3\xa9",
    "☃ Überraschung".encode(), b"\xff\xfe", b"\x00", b" ", b"\t", b"\r", b"\n", b"\r\n",
    b"\n\r", b"\x1b[2J",
])
NOISE = st.one_of(
    st.binary(max_size=300),
    st.lists(st.one_of(PIECES, st.binary(max_size=6)), max_size=40).map(b"".join),
    st.binary(min_size=MAX_LINE + 1, max_size=12 * MAX_LINE),  # overlong
)


def recovered(raw: bytes) -> bytes | None:
    """The line the host reads from one raw line (see the module docstring)."""
    raw = raw.rstrip(b"\r")
    for i in range(len(raw)):
        tail = raw[i:]
        if len(tail) <= MAX_LINE and PRINTABLE.fullmatch(tail) and HEAD.match(tail):
            return tail
    return None


def acts(line: bytes) -> bool:
    """Whether the host would take this line as a button or the box's expiry."""
    words = line.split()
    return ((len(words) == 2 and words[0] == b"BUTTON" and words[1] in (b"START", b"STOP",
                                                                       b"NEXT"))
            or words in ([b"HELD", b"NEXT"], [b"EXPIRED"]))


def could_act(data: bytes) -> bool:
    """Whether any line, as the host recovers it, would act."""
    return any(acts(recovered(raw) or b"") for raw in data.split(b"\n")[:-1])


@pytest.fixture
def running(tmp_path: Path, table: Table) -> Iterator[tuple[TableTimer, int]]:
    """A Dr. Shark search running on the clapper box (on a clock that never moves)."""
    with VirtualBox(tmp_path / "clapperbox") as box:
        sid = new_game(table)
        with open_timer(f"serial:{box.path}", table, QUIET, clock=FakeClock()) as timer:
            waiter = Waiter()
            timer.listen(waiter)
            box.press("START")
            waiter.wait_for("running")
            yield timer, sid


class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=NOISE, cuts=st.lists(st.integers(0, 12 * MAX_LINE), max_size=6))
def test_noise_from_the_box_changes_nothing(running: tuple[TableTimer, int], table: Table,
                                            data: bytes, cuts: list[int]) -> None:
    timer, sid = running
    assume(not could_act(data))
    device = cast(SerialBackend, timer.backend)
    before_log, before = log_types(table, sid), timer.status()
    device.error = None
    warnings = Warnings()
    logging.getLogger("companion.hardware.serial_box").addHandler(warnings)
    try:
        lines = _Lines(device)  # the reader's own line handler, fed as the reader feeds it
        edges = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
        for a, b in itertools.pairwise(edges):
            lines.data_received(data[a:b])
        assert len(lines.buffer.partial) <= MAX_LINE + 1  # noise is never hoarded
    finally:
        logging.getLogger("companion.hardware.serial_box").removeHandler(warnings)
    assert log_types(table, sid) == before_log
    after = timer.status()
    assert (after["state"], after["ms_left"], after["session"]) == (
        before["state"], before["ms_left"], before["session"])
    assert device.link == "connected"
    complete = data.split(b"\n")[:-1]
    odd = [raw for raw in complete if recovered(raw) != raw.rstrip(b"\r")
           or not VALID.fullmatch(raw.rstrip(b"\r"))]
    if odd:
        assert device.error and warnings.messages  # told, not swallowed
        assert device.url in device.error or "refused" in device.error


def test_noise_through_the_pty_then_a_real_press(tmp_path: Path, table: Table) -> None:
    """The whole path: a burst of line noise down the real pty, then START on the box:
    the host is still listening and the press is the only thing logged."""
    rng = random.Random(9)
    blob = (bytes(rng.randrange(256) for _ in range(4000)) + b"\n"
            + b"A" * 5000 + b"\r\r\n" + "RUNNING ☃\r\n".encode() + b"BUTTON STRT\n"
            + b"\n\r\n\r" + b"EXPIRED now\n" + b"HELD\tNEXT NEXT\n")
    assert not could_act(blob)
    with VirtualBox(tmp_path / "clapperbox") as box:
        sid = new_game(table)
        with open_timer(f"serial:{box.path}", table, QUIET) as timer:
            started = threading.Event()
            table.listen(lambda s, seq: started.set())
            box.garbage(blob)
            box.press("START")
            assert started.wait(5)
            device = cast(SerialBackend, timer.backend)
            assert device.link == "connected" and device.error
            assert timer.status()["state"] == "running"
    assert log_types(table, sid) == ["move", "start_search"]
