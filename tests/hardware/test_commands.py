"""``companion hw``: the virtual box as a process, the wiring check, the port list."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

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
