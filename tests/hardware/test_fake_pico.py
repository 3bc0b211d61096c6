"""The host against a virtual box with the real Pico's quirks over a real pty: bytes it
kept before the port was opened, a crash to MicroPython's REPL, slow reads, and a replug
that brings the box back on another tty behind the same link."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from companion.hardware import open_timer
from companion.hardware.serial_box import SerialBackend
from companion.hardware.virtual_box import VirtualBox
from companion.table import Table
from tests.hardware.conftest import Waiter, log_types, new_game

FAST: dict[str, Any] = {"duration_s": 1, "warning_s": 0.5, "heartbeat_s": 0.1,
                        "reconnect_s": 0.05, "reply_timeout_s": 0.5}
# A search the box was running before the host opened the port, cut mid-word: what
# MicroPython's USB serial hands over (up to 256 bytes) after the host cleared its input.
KEPT = b"NING 12000\nRUNNING 11000\nRUNNING 10000\nBUTTON ST"


@pytest.fixture
def box(tmp_path: Path) -> Iterator[VirtualBox]:
    with VirtualBox(tmp_path / "clapperbox", buffered=KEPT) as vb:
        yield vb


def test_bytes_kept_from_before_the_open_do_not_spoil_the_handshake(
        box: VirtualBox, table: Table) -> None:
    sid = new_game(table)
    with open_timer(f"serial:{box.path}", table, FAST) as timer:
        device = timer.status()["device"]
        assert device["connection"] == "connected" and device["firmware"] == "1.0"
        waiter = Waiter()
        timer.listen(waiter)
        box.press("START")
        waiter.wait_for("expired")
    assert log_types(table, sid) == ["move", "start_search", "time_up"]


def test_a_box_crashed_to_the_repl_is_not_connected(box: VirtualBox, table: Table) -> None:
    with open_timer(f"serial:{box.path}", table, FAST) as timer:
        device = cast(SerialBackend, timer.backend)
        assert device.link == "connected"
        box.crash()  # from now on it echoes PING and answers with tracebacks
        assert device.wait_link("reconnecting", 5)
        until = time.monotonic() + 5
        while "Python prompt" not in (device.error or ""):
            assert time.monotonic() < until, device.error
            time.sleep(0.02)
        assert "PING" in box.received  # it was asked, and only echoed
        box.unplug()  # the person re-plugs it: the firmware starts again
        box.replug()
        assert device.wait_link("connected", 5)


def test_a_slow_box_still_claps_on_its_own_time(tmp_path: Path, table: Table) -> None:
    sid = new_game(table)
    with VirtualBox(tmp_path / "clapperbox", slow_ms=40, buffered=KEPT) as slow, \
            open_timer(f"serial:{slow.path}", table, FAST) as timer:
        waiter = Waiter()
        timer.listen(waiter)
        started = time.monotonic()
        slow.press("START")
        waiter.wait_for("running")
        clap = slow.parts.wait_claps(1)[0]
        waiter.wait_for("expired")
    assert clap - started == pytest.approx(1.0, abs=0.3)
    assert log_types(table, sid) == ["move", "start_search", "time_up"]


def test_replugged_on_another_tty_behind_the_same_link(box: VirtualBox,
                                                       table: Table) -> None:
    with open_timer(f"serial:{box.path}", table, FAST) as timer:
        device = cast(SerialBackend, timer.backend)
        ttys = [box.tty]
        kept = []
        for _ in range(2):
            kept.append(os.open(box.tty, os.O_RDWR | os.O_NOCTTY))  # the old tty stays taken
            box.unplug()
            assert device.wait_link("reconnecting", 5)
            box.replug()
            ttys.append(box.tty)
            assert device.wait_link("connected", 5)
        for fd in kept:
            os.close(fd)
        assert len(set(ttys)) == 3  # a new tty each time, behind the same link
        assert Path(box.path).resolve() == Path(box.tty)
        assert timer.status()["device"]["reconnects"] == 2
