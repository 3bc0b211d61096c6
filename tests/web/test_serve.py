"""``companion serve`` settings: config file, flags that win, the PIN kept across starts
(the rules of config.toml itself: tests/companion/test_settings.py)."""

from __future__ import annotations

import argparse
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from companion.settings import ConfigError
from web import commands


def args(**given: object) -> argparse.Namespace:
    base = dict.fromkeys(("host", "port", "db", "pin", "timer", "camera", "threads",
                          "config", "hub", "table"))
    base.update(given)
    return argparse.Namespace(**base)


def test_flags_win_over_the_file(tmp_path: Path) -> None:
    file = tmp_path / "config.toml"
    file.write_text('port = 9000\npin = "1111"\ntimer = "gpio"\ncamera = "0"\n'
                    '[vision]\nmat = "/x/mat.json"\n', "utf-8")
    conf = commands.settings(args(config=file, port=9100))
    assert conf.port == 9100 and conf.pin == "1111" and conf.timer == "gpio"
    assert conf.camera == "0" and conf.host == "0.0.0.0"
    assert conf.vision == {"mat": "/x/mat.json"}
    conf = commands.settings(args(config=file, timer="serial:loop://", pin="2222"))
    assert conf.timer == "serial:loop://" and conf.pin == "2222"


def test_the_default_config_file_follows_xdg(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "companion").mkdir()
    (tmp_path / "companion" / "config.toml").write_text("port = 8123\n", "utf-8")
    assert commands.settings(args()).port == 8123


@pytest.mark.parametrize("given, message", [
    ({"timer": "usb"}, "browser, gpio or serial:URL"),
    ({"port": 70000}, "not a TCP port"),
    ({"pin": " "}, "the PIN must be 1 to 32 characters"),
])
def test_bad_flags_say_what_to_fix(tmp_path: Path, given: dict[str, object],
                                   message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        commands.settings(args(config=None, db=str(tmp_path / "c.db"), **given))


def test_the_cookie_key_is_kept(tmp_path: Path) -> None:
    key = commands.secret_key(tmp_path)
    assert len(key) == 64 and commands.secret_key(tmp_path) == key


def test_serve_refuses_a_bad_config_with_exit_2(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "config.toml"
    file.write_text("threads = true\n", "utf-8")
    code = commands.cmd_serve(args(config=file, db=str(tmp_path / "c.db")))
    err = capsys.readouterr().err
    assert code == 2 and "threads must be a whole number" in err and str(file) in err


def test_every_connection_is_watched_for_a_phone_that_went_away(tmp_path: Path) -> None:
    """waitress reads a connection while its live stream runs (a closed stream is seen at
    once), and TCP keepalive with a user timeout finds a phone that vanished."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = commands.settings(args(host="127.0.0.1", port=port, db=str(tmp_path / "c.db")))

    def app(environ: dict[str, Any], start: Any) -> list[bytes]:
        start("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    server = commands.server(app, conf)
    stop = threading.Event()

    def serve() -> None:  # server.run() until stopped, so that the sockets are closed
        while not stop.is_set():  # only once its loop has ended (not under its select)
            server.asyncore.loop(timeout=0.05, map=server._map, count=1)

    loop = threading.Thread(target=serve, daemon=True)
    loop.start()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            for _ in range(100):
                if server.active_channels:
                    break
                time.sleep(0.05)
            (channel,) = server.active_channels.values()
            conn = channel.socket
            assert conn.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
            assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == 2
            assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 5000
        assert server.adj.channel_request_lookahead >= 1
    finally:
        stop.set()
        loop.join(timeout=5)
        server.close()
