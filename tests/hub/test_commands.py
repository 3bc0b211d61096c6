"""``companion doctor``'s hub check against a real Mosquitto, and the command lines'
answers to input they cannot use (one line, exit 2, nothing started)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.doctor import Setup
from companion.settings import Settings
from hub.doctor import check_hub
from tests.hub.conftest import PASSWORDS, Mosquitto, free_port


def findings(config: dict) -> list:
    return list(check_hub(Setup(Settings(path=Path("/nonexistent/config.toml"), **config))))


def test_the_doctor_checks_the_broker_and_the_credentials(mosquitto: Mosquitto) -> None:
    url = mosquitto.url
    [ok] = findings({"hub": url, "table": "t1", "hub_password": PASSWORDS["t1"]})
    assert ok.ok and "accepts table t1" in ok.detail
    [bad] = findings({"hub": url, "table": "t1", "hub_password": "wrong"})
    assert not bad.ok and "refused user 't1'" in bad.detail and "mosquitto_passwd" in bad.fix
    [denied] = findings({"hub": url, "table": "t2", "hub_username": "t1",
                         "hub_password": PASSWORDS["t1"]})
    assert not denied.ok and "ACL" in denied.detail
    [gone] = findings({"hub": f"mqtt://127.0.0.1:{free_port()}", "table": "t1"})
    assert not gone.ok and "cannot reach" in gone.detail
    [off] = findings({})
    assert off.ok and "not publishing" in off.detail
    [typo] = findings({"hub": "127.0.0.1:1883", "table": "t1"})
    assert not typo.ok and "mqtt://HOST:PORT" in typo.detail


def run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], capture_output=True,
                          text=True, timeout=60, env={"HOME": str(home),
                                                      "XDG_CONFIG_HOME": str(home / "c"),
                                                      "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize(("args", "said"), [
    (["hub"], "give the broker"),
    (["hub", "--broker", "localhost:1883"], "mqtt://HOST:PORT"),
    (["serve", "--hub", "mqtt://127.0.0.1:1"], "--hub needs --table"),
    (["serve", "--hub", "mqtt://127.0.0.1:1", "--table", "a/b"], "table name"),
    (["serve", "--hub", "tcp://x", "--table", "t1"], "mqtt://HOST:PORT"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], said: str) -> None:
    out = run(*args, "--db", str(tmp_path / "x.db"), home=tmp_path)
    assert out.returncode == 2, out.stderr
    assert said in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
