"""Fixtures of the hub tests: a real Mosquitto on a free loopback port (password file and
the shipped ACL), tables and a hub as ``companion`` subprocesses, and API helpers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hub import broker
from tests.web.conftest import (  # noqa: F401 (fixtures for the hub's browser test)
    PHONE,
    TABLET,
    chromium,
    new_browser,
    playwright_driver,
    screenshot,
)

ACL = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto" / "companion.acl"
TABLES = ("t1", "t2", "t3")
PASSWORDS = {"hub": "hub-secret", **{t: f"{t}-secret" for t in TABLES}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def need_mosquitto() -> None:
    if shutil.which("mosquitto", path="/usr/sbin:/usr/bin") and shutil.which(
            "mosquitto_passwd", path="/usr/sbin:/usr/bin"):
        return
    message = ("Debian's mosquitto is missing: install it with 'apt-get install -y "
               "mosquitto' (make test does this as root)")
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


class Mosquitto:
    """A Mosquitto with the shipped ACL, one user per table and ``hub``."""

    def __init__(self, home: Path) -> None:
        need_mosquitto()
        self.home = home
        self.port = free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.passwd = home / "passwd"
        for user, password in PASSWORDS.items():
            broker.add_user(self.passwd, user, password)
        self.conf = broker.write_config(home / "broker", "127.0.0.1", self.port,
                                        password_file=self.passwd, acl_file=ACL)
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = broker.start(self.conf, "127.0.0.1", self.port, log=self.home / "log")

    def kill(self) -> None:
        """SIGKILL: whatever the broker held in memory is gone."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


class Proc:
    """A ``companion`` subprocess serving HTTP on a free loopback port."""

    def __init__(self, home: Path, command: list[str], ready: str) -> None:
        self.home, self.command, self.ready = home, command, ready
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.lines: list[str] = []
        self.start()

    def start(self) -> None:
        env = {**os.environ, "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / "config"),
               "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", *self.command, "--host", "127.0.0.1",
             "--port", str(self.port)], env=env, stderr=subprocess.PIPE, text=True)
        seen = threading.Event()
        threading.Thread(target=self._read, args=(seen,), daemon=True).start()
        if not seen.wait(30):
            self.stop()
            raise RuntimeError(f"{self.command[0]} did not start:\n" + "".join(self.lines))
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        raise RuntimeError(f"{self.command[0]} is not listening:\n" + "".join(self.lines))

    def _read(self, seen: threading.Event) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if self.ready in line:
                seen.set()
        seen.set()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as res:
            return json.loads(res.read())


PIN = "1357"


class Table(Proc):
    """``companion serve --hub … --table NAME`` (``name`` None: a table without a hub)."""

    def __init__(self, home: Path, name: str | None, mqtt_url: str | None) -> None:
        self.name = name
        self.db = home / "companion.db"
        extra = ["--hub", mqtt_url, "--table", name] if name and mqtt_url else []
        config = home / "config" / "companion" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        if name:
            config.write_text(f'hub_password = "{PASSWORDS[name]}"\n', "utf-8")
        super().__init__(home, ["serve", "--db", str(self.db), "--pin", PIN, *extra],
                         "table PIN")

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "X-Table-Pin": PIN, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())


class Hub(Proc):
    """``companion hub --broker … --db …`` as the broker's user ``hub``."""

    def __init__(self, home: Path, mqtt_url: str, db: Path | None = None) -> None:
        home.mkdir(parents=True, exist_ok=True)
        (home / "hub-password").write_text(PASSWORDS["hub"] + "\n", "utf-8")
        self.db = db or home / "hub.db"
        super().__init__(home, ["hub", "--broker", mqtt_url, "--db", str(self.db),
                                "--username", "hub", "--password-file",
                                str(home / "hub-password")], "serving on")


def wait_for(check: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    """Poll ``check`` until it returns something true (bounded)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what or check}: last {last!r}")


@pytest.fixture(scope="module")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    m = Mosquitto(tmp_path_factory.mktemp("mosquitto"))
    yield m
    m.stop()
