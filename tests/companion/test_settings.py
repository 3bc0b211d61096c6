"""config.toml read once: defaults, the file, flags that win; bad input says what to fix."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from companion.settings import PIN_FILE, ConfigError, Settings, check_pin, keys


def write(tmp_path: Path, text: str) -> Path:
    file = tmp_path / "config.toml"
    file.write_text(text + "\n", "utf-8")
    return file


@pytest.fixture(autouse=True)
def empty_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("COMPANION_DB", str(tmp_path / "data" / "companion.db"))


def test_defaults_without_a_config_file(tmp_path: Path) -> None:
    missing = tmp_path / "none.toml"
    with pytest.raises(ConfigError, match="no config file at"):
        Settings.load(missing)
    settings = Settings.load()   # the default file need not exist (XDG points at tmp)
    assert (settings.port, settings.host, settings.timer) == (8000, "0.0.0.0", "browser")
    assert settings.pin is None and settings.camera is None and settings.threads == 64


def test_flags_win_over_the_file(tmp_path: Path) -> None:
    file = write(tmp_path, 'port = 9000\npin = "1111"\ntimer = "gpio"\ncamera = "0"\n'
                 '[vision]\nmat = "/x/mat.json"\n[hardware]\nduration_s = 20')
    s = Settings.load(file, port=9100, timer=None)
    assert (s.port, s.pin, s.timer, s.camera, s.host) == (9100, "1111", "gpio", "0", "0.0.0.0")
    assert s.vision == {"mat": "/x/mat.json"} and s.hardware == {"duration_s": 20}
    assert s.path == file


def test_the_default_file_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "xdg" / "companion").mkdir(parents=True)
    (tmp_path / "xdg" / "companion" / "config.toml").write_text("port = 8123\n")
    assert Settings.load().port == 8123


def test_settings_are_frozen(tmp_path: Path) -> None:
    s = Settings.load(write(tmp_path, "[vision]\ndeck = 'd'"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.port = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.vision["deck"] = "other"  # type: ignore[index]


@pytest.mark.parametrize("text, message", [
    ("port = 'eighty'", "port must be a whole number, not 'eighty'"),
    ("threads = true", "threads must be a whole number"),
    ("show_pin = 'yes'", "show_pin must be true or false"),
    ("colour = 'red'", "unknown key 'colour' (known: host, port"),
    ("port = ", "cannot read"),
    ("timer = 'usb'", "browser, gpio or serial:URL, not 'usb'"),
    ("port = 70000", "not a TCP port"),
    ("pin = ''", "the PIN must be 1 to 32 characters"),
    ("hardware = 3", "hardware must be a [table]"),
])
def test_bad_config_says_what_to_fix(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("[", r"\[")):
        Settings.load(write(tmp_path, text))


def test_a_file_that_is_not_toml_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        Settings.load(write(tmp_path, 'port = 8000\ntimer = "gpio'))
    assert str(tmp_path / "config.toml") in str(err.value) and "line 2" in str(err.value)


def test_bad_flags_are_refused_too(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--port must be a whole number"):
        Settings.load(None, port="80")
    with pytest.raises(ConfigError, match="not a TCP port"):
        Settings.load(None).but(port=0)


def test_every_field_but_the_path_is_a_key() -> None:
    assert set(keys()) == {f.name for f in dataclasses.fields(Settings)} - {"path"}
    assert keys()["db"] == (str,) and keys()["hardware"] == (dict,)


def test_the_pin_rule() -> None:
    assert check_pin(" 4711 ") == "4711"
    for bad in ("", "   ", "x" * 33):
        with pytest.raises(ConfigError, match="1 to 32 characters"):
            check_pin(bad)


def test_the_pin_is_generated_once_and_kept(tmp_path: Path) -> None:
    s = Settings.load(None, db=str(tmp_path / "data" / "c.db"))
    pin, new = s.table_pin()
    assert new and len(pin) == 6 and pin.isdigit()
    assert s.pin_file == tmp_path / "data" / PIN_FILE
    assert s.pin_file.stat().st_mode & 0o777 == 0o600
    assert s.table_pin() == (pin, False)
    assert s.but(pin="4711").table_pin() == ("4711", False)


def test_a_kept_pin_file_without_a_pin_is_refused(tmp_path: Path) -> None:
    s = Settings.load(None, db=str(tmp_path / "c.db"))
    s.pin_file.write_text("\n")
    with pytest.raises(ConfigError, match="holds no usable PIN: delete it"):
        s.table_pin()
