"""A gpio timer whose pin library fell back is said loudly, by ``serve`` and ``doctor``.

lgpio fails here as it fails under a unit without a writable folder: the real library,
with ``LG_WD`` naming a folder that is not there, cannot make its notification pipe. Where
another library then loads (gpiozero's MockFactory standing in for the native library a
Pi 5 falls back to), the timer runs on it and both commands say it does not drive a Pi 5.
"""

from __future__ import annotations

import importlib.abc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gpiozero.pins.native
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion import doctor
from companion.hardware import pins
from companion.settings import Settings
from companion.table import Table
from tests.web.conftest import Server
from web import commands

ROOT = Path(__file__).resolve().parents[2]


class NativeFactory(MockFactory):
    """gpiozero's mock pins under the name of the library gpiozero falls back to last."""


class NoLgpio(importlib.abc.MetaPathFinder):
    """An installation without lgpio: importing it fails as a missing module does."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name == "lgpio":
            raise ModuleNotFoundError("No module named 'lgpio'", name=name)


@pytest.fixture
def lgpio_fails(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No pin library chosen yet, and ``import lgpio`` fails; the native one loads."""
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.delitem(sys.modules, "lgpio", raising=False)
    monkeypatch.setattr(sys, "meta_path", [NoLgpio(), *sys.meta_path])
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.setattr(gpiozero.pins.native, "NativeFactory", NativeFactory)
    Device.pin_factory = None
    yield
    if Device.pin_factory is not None:
        Device.pin_factory.close()
    Device.pin_factory = None


def test_the_reasons_gpiozero_passed_over_lgpio_are_kept(lgpio_fails: None) -> None:
    why = pins.choose()
    assert type(Device.pin_factory) is NativeFactory
    assert why[0] == "Falling back from lgpio: No module named 'lgpio'"
    assert pins.reasons() == why
    problem = pins.fallback("NativeFactory", why)
    assert problem and "fell back to NativeFactory" in problem and "Raspberry Pi 5" in problem
    assert "install lgpio" in pins.fix(why)


def test_no_fallback_no_warning(mock_pins: MockFactory) -> None:
    assert pins.choose() == []  # set by the program: gpiozero chose nothing
    assert pins.fallback("MockFactory", ["Falling back from lgpio: x"]) is None
    assert pins.fallback("NativeFactory", []) is None  # named by GPIOZERO_PIN_FACTORY


def test_serve_says_loudly_that_the_gpio_timer_fell_back(lgpio_fails: None,
                                                         table: Table) -> None:
    timer, problem = commands.open_timer("gpio", table, {})
    assert problem is None and timer is not None
    try:
        said = commands.gpio_fallback(timer)
    finally:
        timer.close()
    assert said is not None
    lines = said.splitlines()
    assert lines[0] == lines[-1] and set(lines[0].removeprefix("companion: ")) == {"!"}
    assert "WARNING: gpiozero could not use lgpio and fell back to NativeFactory" in said
    assert "fix: install lgpio" in said


def test_doctor_says_the_gpio_timer_fell_back(lgpio_fails: None, tmp_path: Path) -> None:
    (finding,) = doctor.check_timer(doctor.Setup(Settings(tmp_path / "none.toml", timer="gpio")))
    assert not finding.ok
    assert "fell back to NativeFactory" in finding.detail
    assert "Falling back from lgpio" in finding.detail
    assert "install lgpio" in finding.fix


def run_doctor(tmp_path: Path, lg_wd: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COMPANION_", "GPIOZERO_", "XDG_"))}
    env |= {"LG_WD": str(lg_wd), "HOME": str(tmp_path), "PYTHONPATH": str(ROOT),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "COMPANION_DB": str(tmp_path / "companion.db")}
    done = subprocess.run([sys.executable, "-m", "companion.cli", "doctor", "--json",
                           "--timer", "gpio"], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    (timer,) = [f for f in json.loads(done.stdout)["findings"] if f["check"] == "timer"]
    return timer


def test_doctor_names_lgpio_without_a_writable_folder_and_lg_wd_as_the_fix(
        tmp_path: Path) -> None:
    timer = run_doctor(tmp_path, tmp_path / "not-there")
    assert not timer["ok"]
    assert "Falling back from lgpio: [Errno 2] No such file or directory: '.lgd-nfy" in (
        timer["detail"])
    assert "LG_WD" in timer["detail"] and "RuntimeDirectory=companion" in timer["detail"]
    # With a folder of its own the import works: lgpio now only misses a GPIO chip.
    (tmp_path / "run").mkdir()
    timer = run_doctor(tmp_path, tmp_path / "run")
    assert "Falling back from lgpio" in timer["detail"] and "lgd-nfy" not in timer["detail"]
    assert list((tmp_path / "run").glob(".lgd-nfy*"))


def test_serve_falls_back_to_the_browser_timer_loudly(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setenv("LG_WD", str(tmp_path / "not-there"))
    server = Server(tmp_path, "--timer", "gpio")
    server.stop()
    said = "".join(server.lines)
    assert "WARNING: the gpio timer is NOT in use" in said
    assert "'.lgd-nfy" in said and "LG_WD" in said
    assert "WARNING: using the browser timer instead" in said
    assert "Traceback" not in said


@pytest.fixture
def pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Raspberry Pi's /sys/module, /proc/device-tree/model and config.txt, as files."""
    monkeypatch.setattr(pins, "SYS_MODULE", tmp_path / "sys" / "module")
    monkeypatch.setattr(pins, "MODEL", tmp_path / "model")
    monkeypatch.setattr(pins, "BOOT_CONFIGS", (tmp_path / "boot" / "config.txt",))
    (tmp_path / "model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    (tmp_path / "boot").mkdir()
    (tmp_path / "boot" / "config.txt").write_text("[all]\ndtparam=audio=on\n")
    return tmp_path


def kernel_says(root: Path, driver: str, name: str, value: str) -> None:
    folder = root / "sys" / "module" / driver / "parameters"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(value + "\n")


def release_finding(timer: str = "gpio") -> list[doctor.Finding]:
    return list(doctor.check_pin_release(doctor.Setup(Settings(Path("/nonexistent"), timer=timer))))


def test_a_kernel_that_keeps_released_outputs_is_a_problem(pi: Path) -> None:
    kernel_says(pi, "pinctrl_rp1", "persist_gpio_outputs", "Y")
    (finding,) = release_finding()
    assert not finding.ok and finding.check == "pin release"
    assert "pinctrl_rp1.persist_gpio_outputs=Y" in finding.detail
    assert "solenoid on" in finding.detail
    assert "dtparam=strict_gpiod" in finding.fix and "reboot" in finding.fix
    (pi / "boot" / "config.txt").write_text("dtparam=strict_gpiod\n")  # not rebooted yet
    (finding,) = release_finding()
    assert not finding.ok and finding.fix.startswith("reboot:")


def test_strict_gpiod_in_effect_is_well(pi: Path) -> None:
    kernel_says(pi, "pinctrl_bcm2835", "persist_gpio_outputs", "N")
    (finding,) = release_finding()
    assert finding.ok and "pinctrl_bcm2835.persist_gpio_outputs=N" in finding.detail


def test_any_driver_that_keeps_outputs_counts(pi: Path) -> None:
    kernel_says(pi, "pinctrl_bcm2835", "persist_gpio_outputs", "N")
    kernel_says(pi, "pinctrl_rp1", "strict_gpiod", "N")  # the first kernels' name
    (finding,) = release_finding()
    assert not finding.ok and "pinctrl_rp1.strict_gpiod=N" in finding.detail


def test_a_pi_kernel_that_does_not_say(pi: Path) -> None:
    (finding,) = release_finding()
    assert not finding.ok and "Raspberry Pi 5 Model B" in finding.detail
    assert "dtparam=strict_gpiod" in finding.fix
    (pi / "boot" / "config.txt").write_text("[all]\n  dtparam=strict_gpiod\n")
    (finding,) = release_finding()
    assert finding.ok and "dtparam=strict_gpiod is in" in finding.detail


def test_not_a_pi_or_not_the_gpio_timer(pi: Path) -> None:
    (pi / "model").unlink()
    (finding,) = release_finding()
    assert finding.ok and "not a Raspberry Pi" in finding.detail
    assert release_finding("serial:/dev/clapperbox") == []
    assert release_finding("browser") == []
