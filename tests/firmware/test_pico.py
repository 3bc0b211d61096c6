"""The Pico layer (firmware/pico.py) on the stand-in ``machine`` module, talking over a
pipe with the real ``select.poll`` (test_micropython.py runs it under MicroPython too)."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.firmware.conftest import gp16


class Line:
    """The USB serial line: the host writes into a pipe the firmware reads."""

    def __init__(self) -> None:
        r, self.w = os.pipe()
        self.stdin = open(r, "rb", buffering=0)  # noqa: SIM115 - closed in close()
        self.stdout = io.StringIO()

    def send(self, text: str) -> None:
        os.write(self.w, text.encode())

    def close(self) -> None:
        self.stdin.close()
        os.close(self.w)


@pytest.fixture
def line() -> Iterator[Line]:
    ln = Line()
    yield ln
    ln.close()


def steps_until(fw: object, line: Line, text: str, limit: int = 2000) -> str:
    for _ in range(limit):
        fw.step()  # type: ignore[attr-defined]
        if text in line.stdout.getvalue():
            return line.stdout.getvalue()
    raise AssertionError(f"the firmware never said {text!r}: {line.stdout.getvalue()!r}")


def test_parts_drive_the_right_pins(machine: ModuleType) -> None:
    from firmware import pico
    parts = pico.Parts()
    assert machine.board[16].level == 0 and machine.board[15].level == 0
    assert machine.board[2].level == 1  # pulled up
    parts.solenoid(True)
    parts.solenoid(False)
    assert gp16(machine) == ["0", "1", "0"]
    parts.solenoid(True)
    machine.advance(79)
    assert machine.board[16].level == 1
    machine.advance(1)  # the pulse timer's interrupt, whatever the loop is doing
    assert machine.board[16].level == 0
    parts.leds(0.5)
    assert [machine.board[n].level for n in (6, 7, 8, 9, 10)] == [1, 1, 1, 0, 0]
    machine.board[3].level = 0
    assert parts.pressed("STOP") and not parts.pressed("START")


def test_firmware_answers_the_host_and_reports_buttons(machine: ModuleType,
                                                       line: Line) -> None:
    from firmware import pico
    fw = pico.Firmware(pico.Parts(), line.stdin, line.stdout)
    line.send("HELLO\nPING\n")
    out = steps_until(fw, line, "PONG")
    assert out.splitlines() == ["READY clapperbox 1.0", "PONG"]
    machine.board[2].level = 0  # START pressed
    assert "BUTTON START" in steps_until(fw, line, "BUTTON START")


def test_firmware_claps_on_time_and_leaves_the_solenoid_off(machine: ModuleType,
                                                           line: Line) -> None:
    from firmware import pico
    fw = pico.Firmware(pico.Parts(), line.stdin, line.stdout)
    line.send("START 30\n")
    steps_until(fw, line, "EXPIRED")
    assert gp16(machine)[:2] == ["0", "1"]  # energised for the pulse
    fw.box.safe()  # what run() does when the loop ends for any reason
    assert gp16(machine)[-1] == "0"


def test_holding_stop_at_power_up_is_safe_mode(machine: ModuleType,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware import pico
    real_parts = pico.Parts

    def stop_held() -> pico.Parts:
        parts = real_parts()
        machine.board[3].level = 0
        return parts
    monkeypatch.setattr(pico, "Parts", stop_held)
    pico.run()  # returns at once instead of looping forever
    assert gp16(machine) == ["0"]
