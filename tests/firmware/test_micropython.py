"""The firmware under real MicroPython: the scenarios of tests/firmware/board/scenarios.py
run under CPython and under MicroPython's WebAssembly port (node), and the transcripts
must be the same byte for byte. The CPython run's transcript is also checked here for
what the box must do, so the comparison proves the MicroPython box does it too.

`make micropython` (part of `make test`) installs node and the port from
tests/firmware/board/package-lock.json.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "tests" / "firmware" / "board"
PORT = BOARD / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"


@functools.cache
def under_cpython() -> str:
    env = os.environ | {"PYTHONPATH": f"{BOARD}{os.pathsep}{ROOT}"}
    done = subprocess.run([sys.executable, str(BOARD / "scenarios.py")], cwd=BOARD, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@functools.cache
def under_micropython() -> str:
    node = shutil.which("node")
    if node is None or not PORT.is_dir():
        pytest.fail("MicroPython's WebAssembly port is not installed: run `make micropython` "
                    "(it needs node and npm: apt-get install nodejs npm)")
    done = subprocess.run([node, str(BOARD / "run.mjs"), str(ROOT)], cwd=BOARD,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def section(transcript: str, title: str) -> str:
    """The lines of one scenario, from its ``# title`` line to the next ``#`` line."""
    start = transcript.index("# " + title)
    end = transcript.find("\n#", start + 1)
    return transcript[start:end if end > 0 else None]


def test_micropython_runs_the_scenarios_byte_for_byte_as_cpython() -> None:
    mp = under_micropython()
    assert "MicroPython failed" not in mp and "stderr:" not in mp, mp[-2000:]
    assert mp == under_cpython()


def test_buttons_answer_after_days_idle_across_the_ticks_wrap() -> None:
    out = under_cpython()
    for days in (1, 7, 13, 30):  # 7 and 13 were dead: ticks_diff wraps at 2**29 ms
        later = section(out, f"after {days} days idle").splitlines()[-1]
        assert later.strip() == ("['BUTTON START'] "
                                 "['BUTTON START', 'BUTTON NEXT', 'HELD NEXT']"), days


def test_a_search_is_timed_alike_wherever_the_counter_stands() -> None:
    out = under_cpython()
    bases = re.findall(r"# a 3 s search from ticks (\d+)", out)
    assert [int(b) for b in bases] == [0, 2**29 - 1500, 2**30 - 1500]
    runs = [section(out, f"a 3 s search from ticks {b}").split("\n", 1)[1] for b in bases]
    assert runs[0] == runs[1] == runs[2]
    assert "+3000ms EXPIRED" in runs[0] and "+3000ms solenoid on" in runs[0]
    assert "+3080ms solenoid off" in runs[0]  # the 80 ms pulse, across the wrap too


def test_the_pulse_ends_on_time_while_a_serial_write_blocks() -> None:
    out = section(under_cpython(), "pico: the host does not read")
    on = re.search(r"\+(\d+):GP16=1", out)
    off = re.search(r"\+(\d+):GP16=0 *$", out.splitlines()[-1])
    assert on and off, out
    assert int(off[1]) - int(on[1]) == 80  # not 600: the timer interrupt ends it
    assert "+1200:EXPIRED" in out  # the write of EXPIRED itself was stuck until then


def test_the_watchdog_is_fed_and_a_crash_resets_with_the_solenoid_off() -> None:
    out = under_cpython()
    assert "watchdog fed 200 times in 200 steps" in section(out, "pico: answers")
    crash = section(out, "pico: an exception in the loop resets the Pico")
    pins = crash.splitlines()[1]
    assert pins.index("GP16=1") < pins.rindex("GP16=0")  # mid-pulse, then off for good
    assert "pico: STOP held at power-up is safe mode" in out
