"""``companion hw``: the virtual box as a process, the wiring check, the port list."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
import serial
from gpiozero.pins.mock import MockFactory, MockPin

from companion.cli import main
from companion.hardware.virtual_box import VirtualBox

COMPANION = [sys.executable, "-m", "companion.cli"]


@pytest.fixture
def virtual_box_process(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    with subprocess.Popen([*COMPANION, "hw", "virtual-box", "--link", str(tmp_path / "box")],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True) as proc:
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()
        yield proc, path
        proc.terminate()


def test_virtual_box_prints_its_path_and_answers_like_the_box(
        virtual_box_process: tuple[subprocess.Popen[str], str], tmp_path: Path) -> None:
    proc, path = virtual_box_process
    assert path == str(tmp_path / "box") and Path(path).resolve().as_posix().startswith("/dev/")
    with serial.serial_for_url(path, timeout=5) as port:
        port.write(b"HELLO\n")
        assert port.readline() == b"READY clapperbox 1.0\n"
        assert proc.stdin is not None
        proc.stdin.write("s\n")  # the keyboard presses START
        proc.stdin.flush()
        assert port.readline() == b"BUTTON START\n"


def test_wiring_check_walks_through_every_button(tmp_path: Path) -> None:
    box = VirtualBox(tmp_path / "box", hold_ms=300)
    command = [*COMPANION, "hw", "test", "--timer", f"serial:{box.path}", "--yes",
               "--timeout", "10", "--countdown-ms", "1500"]
    with box, subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True) as proc:
        assert proc.stdout is not None
        actions = {"Press START": ("START", 50), "Press STOP": ("STOP", 50),
                   "Press NEXT briefly": ("NEXT", 50), "Hold NEXT": ("NEXT", 500)}
        transcript = []
        for line in proc.stdout:
            transcript.append(line.rstrip())
            for prompt, (button, ms) in actions.items():
                if line.startswith(prompt):
                    box.press(button, ms)
        assert proc.wait(10) == 0, transcript
    assert [t for t in transcript if t.startswith("  ok")] == [
        "  ok: START works", "  ok: STOP works", "  ok: NEXT works", "  ok: HOLD works"]
    assert transcript[-1] == "all parts work"
    assert len(box.parts.claps()) == 1  # the countdown ended with the clapper


def test_wiring_check_names_a_box_it_cannot_open(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hw", "test", "--timer", "serial:/dev/nobox"]) == 2
    assert "cannot open the clapper box at /dev/nobox" in capsys.readouterr().err


def test_list_ports_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hw", "list-ports", "--json"]) == 0
    ports = json.loads(capsys.readouterr().out)
    assert isinstance(ports, list)
    assert all(set(p) >= {"device", "description", "pico"} for p in ports)


class Transcript(io.StringIO):
    """stdout that wakes a test waiting for a line."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = threading.Condition()

    def write(self, text: str) -> int:
        with self.changed:
            n = super().write(text)
            self.changed.notify_all()
            return n

    def wait_for(self, text: str, timeout: float = 10) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: text in self.getvalue(), timeout), (
                f"never printed {text!r}:\n{self.getvalue()}")


def test_wiring_check_on_gpio_pins_from_the_config_file(
        tmp_path: Path, mock_pins: MockFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('timer = "gpio"\n[hardware]\nhold_s = 0.2\n'
                      '[hardware.pins]\nstart = 5\nclapper = 12\n')
    out = Transcript()
    monkeypatch.setattr(sys, "stdout", out)
    codes: list[int] = []
    check = threading.Thread(target=lambda: codes.append(main(
        ["hw", "test", "--timer", "gpio", "--config", str(config), "--yes"])))
    check.start()
    start, stop, nxt = (cast(MockPin, mock_pins.pin(n)) for n in (5, 27, 22))
    for prompt, button in [("Press START", start), ("Press STOP", stop),
                           ("Press NEXT briefly", nxt)]:
        out.wait_for(prompt)
        button.drive_low()
        button.drive_high()
    out.wait_for("Hold NEXT")
    nxt.drive_low()
    out.wait_for("ok: HOLD works")
    nxt.drive_high()
    check.join(10)
    assert codes == [0]
    assert out.getvalue().rstrip().endswith("all parts work")
    clapper = cast(MockPin, mock_pins.pin(12))
    assert [s.state for s in clapper.states][:2] == [False, True]  # the pulse began


def test_a_bad_config_file_is_named(tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[hardware.pins]\nstart = 99\n")
    assert main(["hw", "test", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert str(config) in err and "hardware.pins.start must be a BCM number" in err
