"""The serial backend against the virtual clapper box over a real pty: host driver <->
pty <-> the firmware's own logic."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import serial

from companion.hardware import (
    HardwareConfig,
    HardwareError,
    TableTimer,
    open_backend,
    open_timer,
)
from companion.hardware.serial_box import SerialBackend, WrongDevice
from companion.hardware.virtual_box import VirtualBox
from companion.table import Table
from tests.hardware.conftest import Waiter, log_types, new_game

FAST: dict[str, Any] = {"duration_s": 1, "warning_s": 0.5, "heartbeat_s": 0.1,
                        "reconnect_s": 0.05, "reply_timeout_s": 0.5}


@pytest.fixture
def box(tmp_path: Path) -> Iterator[VirtualBox]:
    with VirtualBox(tmp_path / "clapperbox", hold_ms=200) as vb:
        yield vb


def timer_on(box: VirtualBox, table: Table, **settings: Any) -> TableTimer:
    return open_timer(f"serial:{box.path}", table, FAST | settings)


def backend(timer: TableTimer) -> SerialBackend:
    return cast(SerialBackend, timer.backend)


def table_event(table: Table, kind: str) -> threading.Event:
    """Set when an action of type ``kind`` is logged in any session."""
    seen = threading.Event()

    def heard(sid: int, seq: int) -> None:
        actions = table.get(sid).actions
        if actions and actions[-1]["type"] == kind:
            seen.set()
    table.listen(heard)
    return seen


def test_button_to_session_to_clapper_round_trip(box: VirtualBox, table: Table) -> None:
    sid = new_game(table)
    with timer_on(box, table) as timer:
        waiter = Waiter()
        timer.listen(waiter)
        assert timer.status()["device"]["connection"] == "connected"
        assert timer.status()["device"]["firmware"] == "1.0"
        box.press("START")
        waiter.wait_for("running")
        box.wait_received("START 1000")
        assert log_types(table, sid) == ["move", "start_search"]
        waiter.wait_for("expired")
        claps = box.parts.wait_claps(1)
    assert len(claps) == 1
    assert "CLAP" not in box.received  # the box kept time and clapped by itself
    assert log_types(table, sid) == ["move", "start_search", "time_up"]
    assert [on for _, on in box.parts.buzzer_log][:2] == [False, True]  # the time-up buzz


def test_stop_and_next_buttons_on_the_box(box: VirtualBox, table: Table) -> None:
    sid = new_game(table)
    with timer_on(box, table, duration_s=30) as timer:
        waiter = Waiter()
        timer.listen(waiter)
        box.press("START")
        waiter.wait_for("running")
        box.press("STOP")
        waiter.wait_for("stopped")
        box.wait_received("STOP")
        ended = table_event(table, "end_turn")
        box.press("NEXT")
        assert ended.wait(5)
        assert log_types(table, sid) == ["move", "start_search", "stop", "end_turn"]
        undone = threading.Event()
        table.listen(lambda s, seq: undone.set())
        box.press("NEXT", ms=400)  # held past the box's 200 ms hold time: undo
        assert undone.wait(5)
    assert log_types(table, sid) == ["move", "start_search", "stop"]
    assert box.parts.claps() == []


def test_unplug_and_replug_mid_search_keeps_the_deadline(box: VirtualBox,
                                                         table: Table) -> None:
    sid = new_game(table)
    # a slow heartbeat: the pulled cable itself must be noticed, not a missing PONG
    with timer_on(box, table, duration_s=2, warning_s=1, heartbeat_s=30) as timer:
        waiter = Waiter()
        timer.listen(waiter)
        started = time.monotonic()
        box.press("START")
        waiter.wait_for("running")
        box.wait_received("START 2000")
        box.unplug()
        assert backend(timer).wait_link("reconnecting", 5)
        box.received.clear()
        box.replug()  # a fresh box at the same path, as after re-plugging the cable
        assert backend(timer).wait_link("connected", 5)
        box.wait_received("START")  # the host told the new box the time still left
        resent = int(next(r for r in box.received if r.startswith("START")).split()[1])
        assert 0 < resent < 2000
        waiter.wait_for("expired")
        clap = box.parts.wait_claps(1)[0]
    # the clapper fired when the original search ran out, not 2 s after the replug
    assert clap - started == pytest.approx(2.0, abs=0.25)
    assert log_types(table, sid) == ["move", "start_search", "time_up"]
    assert timer.status()["device"]["reconnects"] == 1


def test_a_box_that_stays_away_does_not_lose_the_turn(box: VirtualBox, table: Table) -> None:
    sid = new_game(table)
    with timer_on(box, table) as timer:
        waiter = Waiter()
        timer.listen(waiter)
        box.press("START")
        waiter.wait_for("running")
        box.unplug()
        waiter.wait_for("expired")  # the host counted the time itself
        assert timer.status()["device"]["connection"] == "reconnecting"
    assert log_types(table, sid) == ["move", "start_search", "time_up"]


def test_a_silent_box_is_dropped_and_found_again(box: VirtualBox, table: Table) -> None:
    with timer_on(box, table) as timer:
        box.silent = True  # hung firmware: reads, never answers PING
        assert backend(timer).wait_link("reconnecting", 5)
        assert "stopped answering" in (timer.status()["device"]["error"] or "")
        box.silent = False
        assert backend(timer).wait_link("connected", 5)


def test_garbage_from_the_box_is_reported_and_changes_nothing(box: VirtualBox,
                                                             table: Table) -> None:
    sid = new_game(table)
    with timer_on(box, table, duration_s=30) as timer:
        started = table_event(table, "start_search")
        box.garbage(b"\x00\xffNOISE 12\n")
        box.press("START")  # lines are handled in order: the garbage came first
        assert started.wait(5)
        error = timer.status()["device"]["error"]
        assert "not part of its protocol" in error and "NOISE 12" in error
        assert timer.status()["device"]["connection"] == "connected"
    assert log_types(table, sid) == ["move", "start_search"]


def test_garbage_to_the_box_gets_err(box: VirtualBox) -> None:
    with serial.serial_for_url(box.path, timeout=2) as port:
        port.write(b"FLY AWAY\nSTART soon\n" + b"x" * 100 + b"\nPING\n")
        replies = [port.readline().decode().strip() for _ in range(4)]
    assert replies == ["ERR unknown", "ERR START needs the milliseconds, e.g. START 30000",
                       "ERR line too long", "PONG"]


@pytest.mark.parametrize(("identity", "message"), [
    ("OK", "is not a clapper box: it answered 'OK'"),
    ("READY modem 3.1", "is not a clapper box: it answered 'READY modem 3.1'"),
    ("READY clapperbox 2.0", "runs firmware 2.0, this companion speaks 1.x"),
])
def test_a_wrong_device_is_named_and_refused(tmp_path: Path, table: Table, identity: str,
                                             message: str) -> None:
    with VirtualBox(tmp_path / "modem", identity=identity) as other:
        with pytest.raises(HardwareError, match=message) as err:
            open_timer(f"serial:{other.path}", table, FAST)
        assert other.path in str(err.value)


def test_a_device_that_never_answers(box: VirtualBox, table: Table) -> None:
    box.silent = True
    with pytest.raises(HardwareError, match=f"no answer from {box.path} within 0.5 s"):
        open_backend(f"serial:{box.path}", HardwareConfig.from_mapping(FAST))
    with timer_on(box, table) as timer:  # the service waits for it instead
        assert "no answer" in timer.status()["device"]["error"]
        box.silent = False
        assert backend(timer).wait_link("connected", 5)


def test_a_box_plugged_in_after_the_service_started_is_used(tmp_path: Path,
                                                             table: Table) -> None:
    path = tmp_path / "clapperbox"
    sid = new_game(table)
    with open_timer(f"serial:{path}", table, FAST) as timer:
        device = timer.status()["device"]
        assert device["connection"] == "reconnecting"
        assert f"cannot open the clapper box at {path}" in device["error"]
        assert "trying again" in device["error"]
        with VirtualBox(path) as late:
            assert backend(timer).wait_link("connected", 5)
            waiter = Waiter()
            timer.listen(waiter)
            late.press("START")
            waiter.wait_for("running")
            late.wait_received("START 1000")
            late.parts.wait_claps(1)
    assert log_types(table, sid)[:2] == ["move", "start_search"]


def test_a_missing_port_and_pyserial_urls(table: Table) -> None:
    with pytest.raises(HardwareError, match="cannot open the clapper box at /dev/nobox"):
        open_backend("serial:/dev/nobox", HardwareConfig.from_mapping(FAST))
    # loop:// echoes HELLO back: a port that works but is no clapper box, refused at once
    with pytest.raises(WrongDevice, match="loop:// is not a clapper box"):
        open_timer("serial:loop://", table, FAST)


def test_a_box_held_by_another_program_is_a_clear_error(box: VirtualBox,
                                                        table: Table) -> None:
    message = f"cannot open the clapper box at {box.path}.*exclusively lock"
    with serial.serial_for_url(box.path, exclusive=True) as other:  # say, mpremote
        with pytest.raises(HardwareError, match=message):
            open_backend(f"serial:{box.path}", HardwareConfig.from_mapping(FAST))
        timer = timer_on(box, table)
        assert "exclusively lock" in timer.status()["device"]["error"]
        other.close()  # mpremote is done: the service takes the box
        assert backend(timer).wait_link("connected", 5)
        timer.close()


def test_a_line_right_after_ready_reaches_the_game(tmp_path: Path, table: Table) -> None:
    """A press (or a box mid-search) talking at once after READY: the reader must know
    its backend before it reads the first line."""
    sid = new_game(table)
    with VirtualBox(tmp_path / "box") as busy, \
            open_timer(f"serial:{busy.path}", table, FAST | {"duration_s": 30}) as timer:
        started = table_event(table, "start_search")
        busy.unplug()
        assert backend(timer).wait_link("reconnecting", 5)
        busy.identity = "READY clapperbox 1.0\nBUTTON START"  # pressed as it came back
        busy.replug()
        assert started.wait(5)
        assert backend(timer).link == "connected"
    assert log_types(table, sid) == ["move", "start_search"]


def test_a_refused_device_leaves_the_port_free(tmp_path: Path, table: Table) -> None:
    with VirtualBox(tmp_path / "modem", identity="READY modem 3.1") as other:
        for _ in range(2):
            with pytest.raises(WrongDevice):
                open_timer(f"serial:{other.path}", table, FAST)
        with serial.serial_for_url(other.path, exclusive=True):
            pass  # neither closed-over try kept it open or locked


def test_noise_without_a_line_end_does_not_swallow_the_next_line(box: VirtualBox,
                                                                 table: Table) -> None:
    sid = new_game(table)
    with timer_on(box, table, duration_s=30) as timer:
        started = table_event(table, "start_search")
        box.garbage(b"\xff\x00" * 20 + b"~" * 30)  # a loose wire, no line end
        box.press("START")  # the next real line, right behind the noise
        assert started.wait(5)
        assert "noise" in (timer.status()["device"]["error"] or "")
    assert log_types(table, sid) == ["move", "start_search"]


def test_the_virtual_box_reports_whole_milliseconds(box: VirtualBox) -> None:
    """DESIGN.md: every <ms> is whole milliseconds in digits (the host takes anything
    else for a loose cable)."""
    with serial.serial_for_url(box.path, timeout=2) as port:
        port.write(b"START 1500\n")
        replies = [port.readline().decode().strip() for _ in range(3)]
        port.write(b"STOP\n")
        replies.append(port.readline().decode().strip())
    assert replies[0] == "RUNNING 1500"
    assert replies[1].startswith("RUNNING ") and 0 < int(replies[1].split()[1]) <= 500
    for reply in replies:
        assert re.fullmatch(r"(RUNNING|STOPPED) \d+|EXPIRED", reply), replies



def test_a_host_deadline_run_after_the_box_clapped_sends_no_clap(box: VirtualBox) -> None:
    """The box keeps time, claps by itself and says EXPIRED; on a busy Pi the host's own
    deadline can be handled after that (its worker runs the clap late). The box has
    clapped: the host does not tell it to clap again (one clap, not two)."""
    dev = cast(SerialBackend, open_backend(f"serial:{box.path}",
                                           HardwareConfig.from_mapping(FAST)))
    expired = threading.Event()
    dev.attach(lambda button: None, expired.set)
    try:
        dev.running(200, 1000)
        assert expired.wait(5)  # the host has read the box's EXPIRED
        box.received.clear()
        dev.clap()  # the host's deadline, late
        box.wait_received("PING")  # a later line: the clap, if any, went before it
    finally:
        dev.close()
    assert "CLAP" not in box.received
    assert len(box.parts.claps()) == 1
