"""Faults while playing: the clapper box pulled and re-plugged, the wall clock jumping.

The box tests run the whole path (host driver <-> real pty <-> the firmware's logic) with
a real Dr. Shark session in a real SQLite file, and read that file back afterwards.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from gpiozero import Device

from companion.hardware import FakeClock, HardwareError, open_timer
from companion.hardware.clock import Clock
from companion.hardware.serial_box import SerialBackend
from companion.hardware.timer import Timer
from companion.hardware.virtual_box import VirtualBox
from companion.store import Store
from companion.table import Table
from tests.hardware.busy_pins import BusyPinFactory
from tests.hardware.conftest import Waiter, log_types, new_game

FAST: dict[str, Any] = {"duration_s": 1, "warning_s": 0.5, "heartbeat_s": 0.1,
                        "reconnect_s": 0.05, "reply_timeout_s": 0.5}


@pytest.fixture
def box(tmp_path: Path) -> Iterator[VirtualBox]:
    with VirtualBox(tmp_path / "clapperbox", hold_ms=200) as vb:
        yield vb


def logged(table: Table, sid: int, count: int) -> threading.Event:
    """Set once session ``sid`` holds ``count`` actions."""
    done = threading.Event()

    def heard(s: int, seq: int) -> None:
        if s == sid and seq >= count:
            done.set()
    table.listen(heard)
    if table.store.count(sid) >= count:
        done.set()
    return done


def test_pulled_and_replugged_twice_loses_nothing_from_the_log(
        box: VirtualBox, table: Table, tmp_path: Path, clock: FakeClock) -> None:
    """Ann's search survives a pulled cable and is stopped from the re-plugged box; Ben's
    search runs out while the box is away and is logged all the same."""
    sid = new_game(table)
    settings = FAST | {"duration_s": 30}
    with open_timer(f"serial:{box.path}", table, settings, clock=clock) as timer:
        device = cast(SerialBackend, timer.backend)
        waiter = Waiter()
        timer.listen(waiter)
        box.press("START")
        waiter.wait_for("running")
        box.wait_received("START 30000")
        box.unplug()
        assert device.wait_link("reconnecting", 5)
        box.replug()
        assert device.wait_link("connected", 5)
        box.wait_received("START")  # the new box was told the time still left
        assert timer.status()["state"] == "running"
        box.press("STOP")  # a button on the re-plugged box reaches the game
        waiter.wait_for("stopped")
        box.press("NEXT")
        assert logged(table, sid, 4).wait(5)
        clock.advance(1)
        waiter.seen.clear()
        box.press("START")
        waiter.wait_for("running")
        box.unplug()
        assert device.wait_link("reconnecting", 5)  # as below: "connected" is the new box
        clock.advance(30)
        waiter.wait_for("expired")  # the host counted Ben's time itself
        assert logged(table, sid, 6).wait(5)
        box.replug()
        assert device.wait_link("connected", 5)
        assert timer.status()["device"]["reconnects"] == 2
        assert timer.status()["state"] == "expired"
    expected = ["move", "start_search", "stop", "end_turn", "start_search", "time_up"]
    assert log_types(table, sid) == expected
    with Store(tmp_path / "companion.db") as again:  # what is on disk, read afresh
        history = again.history(sid)
        assert [e.action["type"] for e in history] == expected
        assert not any(e.undone for e in history)
        assert again.integrity() == "ok"


def test_a_box_pulled_mid_pulse_is_safe_and_the_next_box_claps_on_time(
        box: VirtualBox, table: Table) -> None:
    """Unplugged just as the clapper fires: the old box switches its solenoid off, and a
    search started after re-plugging claps on the new box."""
    sid = new_game(table)
    with open_timer(f"serial:{box.path}", table, FAST) as timer:
        device = cast(SerialBackend, timer.backend)
        waiter = Waiter()
        timer.listen(waiter)
        box.press("START")
        waiter.wait_for("expired")
        box.parts.wait_claps(1)
        box.unplug()  # within the 80 ms pulse
        assert box.parts.solenoid_log[-1][1] is False  # the firmware's safe() on the way out
        # the host saw the old box go: until it has, "connected" is still the old link, and
        # a press on the new box before the host's handshake is thrown away by its reset
        # (on a loaded machine the START below was lost that way: "saw []")
        assert device.wait_link("reconnecting", 5)
        box.replug()
        assert device.wait_link("connected", 5)
        table.play(sid, {"type": "end_turn"})
        waiter.seen.clear()
        started = time.monotonic()
        box.press("START")
        waiter.wait_for("expired")
        claps = box.parts.wait_claps(2)
    assert len(claps) == 2 and claps[1] - started == pytest.approx(1.0, abs=0.5)
    assert log_types(table, sid) == ["move", "start_search", "time_up", "end_turn",
                                     "start_search", "time_up"]


# A pin that cannot be opened ---------------------------------------------------------

def test_a_busy_pin_at_start_is_named_and_nothing_stays_claimed(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUSY_PIN", "22")
    Device.pin_factory = BusyPinFactory()
    try:
        with pytest.raises(HardwareError) as err:
            open_timer("gpio", table)
        assert str(err.value) == ("cannot use BCM 22 for the NEXT button: GPIO22 is busy: "
                                  "another program has claimed it (change hardware.pins in "
                                  "config.toml)")
        # the other program is gone: every pin opens now, so START and STOP (opened
        # before NEXT failed) and NEXT's own reservation were let go again
        monkeypatch.setenv("BUSY_PIN", "4")
        open_timer("gpio", table).close()
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = None


# The wall clock ------------------------------------------------------------------------

@pytest.fixture
def wall_jump(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """``jump["s"] = 3600`` moves the wall clock (time.time and friends) an hour on, as
    when the Pi sets its clock from the network after boot. time.monotonic is untouched."""
    jump = {"s": 0.0}
    real_time, real_ns = time.time, time.time_ns
    monkeypatch.setattr(time, "time", lambda: real_time() + jump["s"])
    monkeypatch.setattr(time, "time_ns", lambda: real_ns() + int(jump["s"] * 1e9))
    return jump


@pytest.mark.parametrize("seconds", [3600.0, -3600.0, 86400.0 * 365])
def test_a_wall_clock_jump_leaves_the_deadline_alone(wall_jump: dict[str, float],
                                                     seconds: float) -> None:
    timer = Timer(duration_s=30)  # the default clock, as in the service
    assert isinstance(timer.clock, Clock)
    timer.start()
    deadline, left = timer.deadline, timer.ms_left()
    before = time.time()
    wall_jump["s"] = seconds
    assert time.time() - before == pytest.approx(seconds, abs=1)  # the jump is real
    assert timer.deadline == deadline
    assert left - 500 <= timer.ms_left() <= left
    assert timer.poll() == []  # nothing became due: no expiry, no burst of beeps
    assert timer.state.value == "running"


def test_a_running_search_ends_on_time_across_a_wall_clock_jump(
        table: Table, box: VirtualBox, wall_jump: dict[str, float]) -> None:
    """The whole table timer on the real clock, with the box: the clock jumps back an
    hour one moment after START, and the search still ends one second later."""
    sid = new_game(table)
    with open_timer(f"serial:{box.path}", table, FAST) as timer:
        waiter = Waiter()
        timer.listen(waiter)
        started = time.monotonic()
        box.press("START")
        waiter.wait_for("running")
        wall_jump["s"] = -3600
        assert timer.status()["state"] == "running"
        waiter.wait_for("expired")
        ended = time.monotonic()
        clap = box.parts.wait_claps(1)[0]
    assert ended - started == pytest.approx(1.0, abs=0.5)
    assert clap - started == pytest.approx(1.0, abs=0.5)
    assert "CLAP" not in box.received  # host and box agreed: the box clapped by itself
    assert log_types(table, sid) == ["move", "start_search", "time_up"]
