"""``companion serve`` settings: config file, flags that win, the PIN kept across starts."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from web import commands


def args(**given: object) -> argparse.Namespace:
    base = dict.fromkeys(("host", "port", "db", "pin", "timer", "camera", "threads",
                          "config"))
    base.update(given)
    return argparse.Namespace(**base)


def test_defaults_without_a_config_file(tmp_path: Path) -> None:
    missing = tmp_path / "none.toml"
    assert commands.load_config(missing, explicit=False) == {}
    with pytest.raises(commands.ConfigError, match="no config file"):
        commands.load_config(missing, explicit=True)


def test_flags_win_over_the_file(tmp_path: Path) -> None:
    file = tmp_path / "config.toml"
    file.write_text('port = 9000\npin = "1111"\ntimer = "gpio"\ncamera = "0"\n'
                    '[vision]\nmat = "/x/mat.json"\n', "utf-8")
    conf = commands.settings(args(config=file, port=9100))
    assert conf["port"] == 9100 and conf["pin"] == "1111" and conf["timer"] == "gpio"
    assert conf["camera"] == "0" and conf["host"] == "0.0.0.0"
    assert conf["vision"] == {"mat": "/x/mat.json"}
    conf = commands.settings(args(config=file, timer="serial:loop://", pin="2222"))
    assert conf["timer"] == "serial:loop://" and conf["pin"] == "2222"


def test_default_config_path_follows_xdg(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "companion").mkdir()
    (tmp_path / "companion" / "config.toml").write_text("port = 8123\n", "utf-8")
    assert commands.settings(args())["port"] == 8123


@pytest.mark.parametrize("text, message", [
    ("port = 'eighty'", "port must be a whole number"),
    ("colour = 'red'", "unknown key 'colour'"),
    ("port = ", "cannot read"),
    ("timer = 'usb'", "browser, gpio or serial:URL"),
    ("port = 70000", "not a TCP port"),
])
def test_bad_config_says_what_to_fix(tmp_path: Path, text: str, message: str) -> None:
    file = tmp_path / "config.toml"
    file.write_text(text + "\n", "utf-8")
    with pytest.raises(commands.ConfigError, match=message):
        commands.settings(args(config=file))


def test_pin_is_generated_once_and_kept(tmp_path: Path) -> None:
    pin, new = commands.table_pin(tmp_path, None)
    assert new and len(pin) == 6 and pin.isdigit()
    assert (tmp_path / "table-pin").stat().st_mode & 0o777 == 0o600
    assert commands.table_pin(tmp_path, None) == (pin, False)
    assert commands.table_pin(tmp_path, "4711") == ("4711", False)
    key = commands.secret_key(tmp_path)
    assert commands.secret_key(tmp_path) == key


def test_serve_refuses_a_bad_config_with_exit_2(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "config.toml"
    file.write_text("threads = true\n", "utf-8")
    code = commands.cmd_serve(args(config=file, db=str(tmp_path / "c.db")))
    assert code == 2 and "threads must be a whole number" in capsys.readouterr().err
