"""The clapper box's logic under CPython: protocol, timekeeping, buttons."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol
from firmware.box import Box
from tests.support.box import Parts


def run_until(box: Box, now: int, end: int) -> tuple[list[tuple[int, str]], int]:
    """Poll the box at every moment it asks for, up to ``end``; lines with their times."""
    out = []
    while now <= end:
        out += [(now, line) for line in box.poll(now)]
        now += max(1, box.next_due(now))
    return out, now


def test_hello_ping_and_unknown_lines() -> None:
    box = Box(Parts())
    assert box.receive("HELLO", 0) == [f"READY clapperbox {protocol.VERSION}"]
    assert box.receive("PING", 0) == ["PONG"]
    assert box.receive("DANCE", 0) == ["ERR unknown"]
    assert box.receive("", 0) == ["ERR unknown"]
    assert box.receive("PING now", 0) == ["ERR PING takes no argument"]
    assert box.receive("START -5", 0) == ["ERR START needs the milliseconds, e.g. START 30000"]
    assert box.receive("START 0", 0) == ["ERR START between 1 and 3600000 ms"]


def test_the_box_keeps_time_reports_warns_and_claps() -> None:
    parts = Parts()
    box = Box(parts, pulse_ms=80)
    assert box.receive("START 5000", 1000) == ["RUNNING 5000"]
    lines, _ = run_until(box, 1000, 6200)
    assert [line for _, line in lines] == [
        "RUNNING 4000", "RUNNING 3000", "RUNNING 2000", "RUNNING 1000", "EXPIRED"]
    assert lines[-1][0] == 6000  # on the dot
    assert parts.solenoid_on == [False, True, False]  # one pulse
    # three warning beeps in the last three seconds, then the time-up buzz (still on)
    assert parts.buzzer_on.count(True) == 4


def test_stop_reports_the_time_left_and_nothing_claps() -> None:
    parts = Parts()
    box = Box(parts)
    box.receive("START 30000", 0)
    run_until(box, 0, 12000)
    assert box.receive("STOP", 12000) == ["STOPPED 18000"]
    lines, _ = run_until(box, 12000, 40000)
    assert lines == [] and True not in parts.solenoid_on
    assert box.receive("STOP", 40000) == ["STOPPED 0"]


def test_start_again_resyncs_a_running_box() -> None:
    box = Box(Parts())
    box.receive("START 30000", 0)
    assert box.receive("START 12000", 5000) == ["RUNNING 12000"]
    lines, _ = run_until(box, 5000, 18000)
    assert lines[-1] == (17000, "EXPIRED")


def test_clap_fires_one_pulse_now() -> None:
    parts = Parts()
    box = Box(parts, pulse_ms=50)
    assert box.receive("CLAP", 100) == []
    box.receive("CLAP", 120)  # a second CLAP during the pulse does not extend it
    assert box.next_due(120) == 30
    box.poll(150)
    assert parts.solenoid_on == [False, True, False]


def test_buttons_debounce_and_hold() -> None:
    box = Box(Parts(), hold_ms=3000)
    assert box.button("START", True, 0) == ["BUTTON START"]
    assert box.button("START", False, 5) == []  # bounce
    assert box.button("START", True, 10) == []
    assert box.button("START", False, 60) == []
    assert box.button("STOP", True, 100) == ["BUTTON STOP"]
    assert box.button("NEXT", True, 200) == []
    assert box.button("NEXT", False, 400) == ["BUTTON NEXT"]  # a short press, on release
    assert box.button("NEXT", True, 1000) == []
    assert box.button("NEXT", True, 3999) == []
    assert box.button("NEXT", True, 4000) == ["HELD NEXT"]
    assert box.button("NEXT", True, 4500) == []  # reported once
    assert box.button("NEXT", False, 5000) == []  # letting go after a hold is not NEXT


def test_line_buffer_splits_and_rejects() -> None:
    lines = protocol.LineBuffer()
    assert lines.feed(b"PI") == []
    assert lines.feed(b"NG\r\nSTART 1") == ["PING"]
    assert lines.feed(b"000\n") == ["START 1000"]
    errors = lines.feed(b"\xff\xfe\n" + b"a" * 200 + b"\nPING\n")
    assert [str(e) for e in errors] == ["unknown", "line too long", "PING"]


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_get_an_answer_and_never_fire_the_clapper(data: bytes) -> None:
    parts = Parts()
    box = Box(parts)
    lines = protocol.LineBuffer()
    for line in lines.feed(data + b"\n"):
        for reply in box.receive(line, 0):
            assert reply.split()[0] in {"READY", "PONG", "ERR", "RUNNING", "STOPPED"}
    if b"CLAP" not in data and b"START" not in data:
        assert not any(parts.solenoid_on)


def test_safe_switches_everything_off() -> None:
    parts = Parts()
    box = Box(parts)
    box.receive("CLAP", 0)
    box.safe()
    assert parts.solenoid_on[-1] is False and parts.buzzer_on[-1] is False


@pytest.mark.parametrize("line", ["HELLO", "START 30000", "STOP", "CLAP", "PING"])
def test_every_command_parses(line: str) -> None:
    assert protocol.parse(line)[0] == line.split()[0]
