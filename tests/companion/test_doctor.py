"""``companion doctor`` run as a user runs it: a real subprocess, a healthy setup, then one
broken thing at a time, each named with what to do."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion import doctor
from companion.hardware.virtual_box import VirtualBox
from companion.settings import Settings
from companion.store import Store
from tests.hardware.busy_pins import plugin_env
from vision import mat


class Home:
    """A user's folders: config in ``config``, data (database, PIN) in ``data``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "config" / "companion" / "config.toml"
        self.data = root / "data"
        self.db = self.data / "companion.db"
        self.config.parent.mkdir(parents=True)
        self.data.mkdir()
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("COMPANION_", "GPIOZERO_", "XDG_"))}
        self.env |= {"XDG_CONFIG_HOME": str(root / "config"), "COMPANION_DB": str(self.db),
                     "GPIOZERO_PIN_FACTORY": "mock", "HOME": str(root)}

    def healthy(self) -> Home:
        """A database with a game in it and a PIN, as after the first evening."""
        with Store(self.db) as store:
            store.create("drshark", ["Ann", "Ben"], {}, seed=1)
        pin = self.data / "table-pin"
        pin.write_text("246810\n")
        pin.chmod(0o600)
        self.config.write_text('timer = "browser"\nport = 8000\n')
        return self

    def doctor(self, *args: str, **env: str) -> tuple[int, str]:
        done = subprocess.run([sys.executable, "-m", "companion.cli", "doctor", *args],
                              env=self.env | env, capture_output=True, text=True,
                              timeout=60, cwd=self.root)
        assert "Traceback" not in done.stderr + done.stdout, done.stderr
        return done.returncode, done.stdout

    def findings(self, *args: str, **env: str) -> tuple[int, dict[str, list[dict[str, str]]]]:
        code, out = self.doctor("--json", *args, **env)
        by_check: dict[str, list[dict[str, str]]] = {}
        for f in json.loads(out)["findings"]:
            by_check.setdefault(f["check"], []).append(f)
        return code, by_check


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path).healthy()


def bad(findings: dict[str, list[dict[str, str]]], check: str) -> dict[str, str]:
    """The one problem reported by ``check`` (and that it is the only problem)."""
    problems = [f for fs in findings.values() for f in fs if not f["ok"]]
    assert [p["check"] for p in problems] == [check], problems
    return problems[0]


def test_a_healthy_setup_is_all_well(home: Home) -> None:
    code, out = home.doctor()
    assert code == 0, out
    assert out.rstrip().endswith("all well")
    for check in ("python", "packages", "config", "timer", "database", "disk",
                  "camera", "pin"):
        assert f"ok   {check}:" in out
    assert "integrity ok, 1 games" in out


def test_a_config_file_that_is_not_toml(home: Home) -> None:
    home.config.write_text('timer = "gpio\n')
    code, found = home.findings()
    assert code == 1
    problem = bad(found, "config")
    assert str(home.config) in problem["detail"]
    assert "fix the file" in problem["fix"]


def test_a_package_out_of_range(home: Home, tmp_path: Path) -> None:
    """An old Flask on the path ahead of the virtualenv's own."""
    old = tmp_path / "old" / "flask-2.0.1.dist-info"
    old.mkdir(parents=True)
    (old / "METADATA").write_text("Metadata-Version: 2.1\nName: flask\nVersion: 2.0.1\n")
    code, found = home.findings(PYTHONPATH=str(tmp_path / "old"))
    assert code == 1
    problem = bad(found, "packages")
    assert "flask 2.0.1 is installed" in problem["detail"] and "<4" in problem["detail"]
    assert "make install" in problem["fix"]


def test_python_too_old_is_named() -> None:
    setup = doctor.Setup(Settings(Path("/nonexistent")))
    (finding,) = doctor.check_python(setup, version="3.9.2")
    assert not finding.ok and "3.9.2" in finding.detail and ">=3.11" in finding.detail
    assert "make install" in finding.fix


def test_no_pin_library_names_the_pin(home: Home) -> None:
    code, found = home.findings("--timer", "gpio", GPIOZERO_PIN_FACTORY="nonesuch")
    assert code == 1
    problem = bad(found, "timer")
    assert "START button on BCM 17" in problem["detail"]
    assert "hardware.pins" in problem["fix"] and "systemctl stop companion" in problem["fix"]


def test_a_busy_pin_is_named(home: Home, tmp_path: Path) -> None:
    env = plugin_env(tmp_path / "plugin", 27)
    code, found = home.findings("--timer", "gpio", **env)
    assert code == 1
    problem = bad(found, "timer")
    assert "BCM 27 for the STOP button" in problem["detail"] and "busy" in problem["detail"]
    assert "systemctl stop companion" in problem["fix"]


def test_mock_pins_are_well_but_said_to_be_mock(home: Home) -> None:
    code, out = home.doctor("--timer", "gpio")
    assert code == 0, out
    assert "pin factory MockFactory (mock pins" in out and "clapper BCM 24" in out


def test_a_pin_given_twice_in_the_config(home: Home) -> None:
    home.config.write_text('timer = "gpio"\n[hardware.pins]\nstop = 17\n')
    code, found = home.findings()
    assert code == 1
    assert "BCM pin 17 is given to two parts" in bad(found, "timer")["detail"]


def test_the_clapper_box_answers(home: Home, tmp_path: Path) -> None:
    with VirtualBox(tmp_path / "clapperbox") as box:
        home.config.write_text(f'timer = "serial:{box.path}"\n')
        code, out = home.doctor()
        assert "HELLO" in box.received
    assert code == 0, out
    assert f"clapper box at {box.path} answered, firmware 1.0" in out


@pytest.mark.parametrize(("identity", "message"), [
    (None, "cannot open the clapper box at"),
    ("OK", "is not a clapper box: it answered 'OK'"),
])
def test_a_missing_or_wrong_clapper_box(home: Home, tmp_path: Path, identity: str | None,
                                        message: str) -> None:
    with VirtualBox(tmp_path / "clapperbox", identity=identity) as box:
        path = box.path if identity else str(tmp_path / "nobox")
        code, found = home.findings("--timer", f"serial:{path}")
    assert code == 1
    problem = bad(found, "timer")
    assert message in problem["detail"] and path in problem["detail"]
    assert "list-ports" in problem["fix"]


def test_a_database_that_is_not_one(home: Home) -> None:
    home.db.write_bytes(b"these are not the pages you are looking for" * 100)
    code, found = home.findings()
    assert code == 1
    problem = bad(found, "database")
    assert str(home.db) in problem["detail"]
    assert "backup" in problem["fix"]


def test_a_damaged_database(home: Home) -> None:
    with Store(home.db) as store:
        for i in range(300):  # a few pages of actions
            store.create("drshark", ["Ann", "Ben"], {"note": "x" * 200}, seed=i)
    pages = home.db.stat().st_size // 4096
    with sqlite3.connect(home.db) as db:  # a page of the sessions table's index, spoilt
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    raw = bytearray(home.db.read_bytes())
    for page in range(2, pages):
        raw[page * 4096 + 8: page * 4096 + 40] = b"\xa5" * 32
    home.db.write_bytes(bytes(raw))
    code, found = home.findings()
    assert code == 1
    problem = bad(found, "database")
    assert "damaged" in problem["detail"] or "malformed" in problem["detail"]
    assert "backup" in problem["fix"]


def test_a_nearly_full_disk(home: Home) -> None:
    code, found = home.findings("--min-free-mb", "1e12")  # more than any disk here has
    assert code == 1
    problem = bad(found, "disk")
    assert "MB free" in problem["detail"] and "free at least" in problem["fix"]


def test_a_check_that_breaks_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(setup: doctor.Setup) -> list[doctor.Finding]:
        raise KeyError("surprise")
    monkeypatch.setattr(doctor, "CHECKS", [broken])
    monkeypatch.setattr(doctor, "PLUGINS", "companion.nothing_installed")
    (finding,) = doctor.run(doctor.Setup(Settings(Path("/nonexistent"))))
    assert not finding.ok and finding.check == "broken" and "surprise" in finding.detail


def test_a_camera_with_the_mat_in_view(home: Home, tmp_path: Path) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), mat.render(mat.standard("A3"), 2.0))
    home.config.write_text(f'camera = "{photo}"\n')
    code, out = home.doctor()
    assert code == 0, out
    assert "ok   camera:" in out and "ok   mat: in view: 4 of 4 markers" in out


def test_a_camera_that_is_not_there(home: Home, tmp_path: Path) -> None:
    code, found = home.findings("--camera", str(tmp_path / "unplugged"))
    assert code == 1
    problem = bad(found, "camera")
    assert "no camera, stream, folder or image" in problem["detail"]
    assert "plug the camera in" in problem["fix"]


def test_a_camera_that_sees_no_mat(home: Home, tmp_path: Path) -> None:
    photo = tmp_path / "ceiling.png"
    cv2.imwrite(str(photo), np.full((480, 640, 3), 90, np.uint8))
    code, found = home.findings("--camera", str(photo))
    assert code == 1
    problem = bad(found, "mat")
    assert "no markers found" in problem["detail"]
    assert "all its corner markers in view" in problem["fix"]


def test_no_pin_yet(home: Home) -> None:
    (home.data / "table-pin").unlink()
    code, found = home.findings()
    assert code == 1
    problem = bad(found, "pin")
    assert "no table PIN yet" in problem["detail"] and "companion serve" in problem["fix"]
    home.config.write_text('pin = "4711"\n')  # or one set in the config file
    code, out = home.doctor()
    assert code == 0 and f"ok   pin: set in {home.config}" in out
    assert "4711" not in out  # the doctor never prints the PIN


def test_a_pin_file_others_can_read(home: Home) -> None:
    (home.data / "table-pin").chmod(0o644)
    code, found = home.findings()
    assert code == 1
    problem = bad(found, "pin")
    assert "can be read by other users" in problem["detail"]
    assert problem["fix"] == f"chmod 600 {home.data / 'table-pin'}"


def test_a_key_serve_does_not_know(home: Home) -> None:
    home.config.write_text('colour = "red"\n')
    code, found = home.findings()
    assert code == 1
    problem = bad(found, "config")
    assert "unknown key 'colour'" in problem["detail"]
