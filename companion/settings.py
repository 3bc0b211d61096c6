"""The companion's settings: config.toml read once into one frozen :class:`Settings`.

The file is ``$XDG_CONFIG_HOME/companion/config.toml`` (``~/.config/companion/…``), or
the one ``--config`` names; flags win over the file::

    host = "0.0.0.0"
    port = 8000
    db = "/home/pi/companion.db"
    pin = "4711"
    timer = "serial:/dev/ttyACM0"     # browser | gpio | serial:URL
    camera = "0"                      # a camera index, device or image file
    show_pin = false                  # show the PIN on every start page, not just the Pi's
    threads = 64                      # waitress's worker threads
    hub = "mqtt://192.168.1.10:1883"  # publish every game to a hub's MQTT broker
    table = "table-1"                 # this table's name there (and its broker user)
    hub_username = "table-1"          # the broker user (default: the table's name)
    hub_password = "..."              # its broker password
    [hardware]                        # pins, port, durations: see hardware.md
    [vision]                          # files for "score from camera"
    deck = "/home/pi/shoal"

A key is a field of :class:`Settings`: its type is what the file must hold, its default
what a missing key means. To add one, add the field (and a line above); the file is then
checked for it, and ``Settings.load(path, key=flag)`` lets a flag win over it.

Without a PIN one is generated on first start and kept in :data:`PIN_FILE` beside the
database (:meth:`Settings.table_pin`), so it stays the same across restarts.
"""

from __future__ import annotations

import os
import secrets
import tomllib
import types
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

PIN_FILE = "table-pin"
"""The file in the data folder that keeps the generated table PIN."""
MAX_PIN = 32


class ConfigError(ValueError):
    """A config file or flag the companion cannot use; the message says what to fix."""


def config_path() -> Path:
    """``$XDG_CONFIG_HOME/companion/config.toml`` (``~/.config/companion/config.toml``)."""
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "companion" / "config.toml"


def check_pin(pin: str) -> str:
    """The table PIN ``pin`` without surrounding spaces; 1 to 32 characters."""
    if not pin.strip() or len(pin) > MAX_PIN:
        raise ConfigError(f"the PIN must be 1 to {MAX_PIN} characters")
    return pin.strip()


@dataclass(frozen=True)
class Settings:
    """What the companion runs with: defaults, then config.toml, then the flags."""

    path: Path = field(default_factory=config_path, metadata={"key": False})
    """The config file read (it need not exist)."""
    host: str = "0.0.0.0"
    port: int = 8000
    db: str | None = None
    """The SQLite file; ``None``: ``$COMPANION_DB`` or the data folder's."""
    pin: str | None = None
    timer: str = "browser"
    camera: str | None = None
    show_pin: bool = False
    threads: int = 64
    hardware: Mapping[str, Any] = field(default_factory=dict)
    """The ``[hardware]`` table, checked by :meth:`hardware_config` when the timer opens."""
    vision: Mapping[str, Any] = field(default_factory=dict)
    hub: str | None = None
    """The broker to publish every game to (``mqtt://HOST:PORT``); ``None``: no hub."""
    table: str | None = None
    hub_username: str | None = None
    hub_password: str | None = None

    @classmethod
    def load(cls, path: Path | None = None, **flags: Any) -> Settings:
        """The settings of config file ``path`` (default :func:`config_path`; a missing
        default file means the defaults) with the ``flags`` that are not ``None`` on top.
        Raises :class:`ConfigError` saying what to fix."""
        file = path or config_path()
        values = _read(file, explicit=path is not None)
        given = {k: v for k, v in flags.items() if v is not None}
        for key, value in given.items():
            _check(key, value, f"--{key.replace('_', '-')}")
        return cls(path=file, **(values | given))._checked()

    def __post_init__(self) -> None:
        object.__setattr__(self, "hardware", types.MappingProxyType(dict(self.hardware)))
        object.__setattr__(self, "vision", types.MappingProxyType(dict(self.vision)))

    def _checked(self) -> Settings:
        if not 1 <= self.port <= 65535:
            raise ConfigError(f"port {self.port} is not a TCP port (1 to 65535)")
        if not 1 <= self.threads <= 1000:
            raise ConfigError(f"threads = {self.threads}: give 1 to 1000 worker threads")
        if self.timer not in ("browser", "gpio") and not self.timer.startswith("serial:"):
            raise ConfigError(f"the timer is browser, gpio or serial:URL, not {self.timer!r}")
        if self.pin is not None:
            check_pin(self.pin)
        return self

    def but(self, **changes: Any) -> Settings:
        """These settings with ``changes`` (``None`` values ignored), checked again."""
        given = {k: v for k, v in changes.items() if v is not None}
        for key, value in given.items():
            _check(key, value, key)
        return replace(self, **given)._checked()

    @property
    def db_path(self) -> Path:
        from companion.store import default_path
        return Path(self.db).expanduser() if self.db else default_path()

    @property
    def data_dir(self) -> Path:
        """The folder of the database, which also keeps the PIN and the cookie key."""
        return self.db_path.parent

    @property
    def pin_file(self) -> Path:
        return self.data_dir / PIN_FILE

    def table_pin(self) -> tuple[str, bool]:
        """The PIN set, else the one kept in :attr:`pin_file`, else a new one (kept);
        and whether it is new."""
        if self.pin is not None:
            return check_pin(self.pin), False
        if self.pin_file.exists():
            try:
                return check_pin(self.pin_file.read_text("utf-8")), False
            except (ConfigError, UnicodeDecodeError):
                raise ConfigError(f"{self.pin_file} holds no usable PIN: delete it and a "
                                  "new one is made and printed") from None
        pin = f"{secrets.randbelow(10**6):06d}"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.pin_file.write_text(pin + "\n", "utf-8")
        self.pin_file.chmod(0o600)
        return pin, True


def keys() -> dict[str, tuple[type, ...]]:
    """Every config key and the Python types its value may have."""
    hints = get_type_hints(Settings)
    out = {}
    for f in fields(Settings):
        if f.metadata.get("key", True):
            hint = hints[f.name]
            kinds = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
            out[f.name] = tuple(dict if get_origin(k) is Mapping else k
                                for k in kinds if k is not type(None))
    return out


WORDS = {str: "text in quotes", int: "a whole number", bool: "true or false",
         dict: "a [table]"}


def _check(key: str, value: object, where: str) -> None:
    known = keys()
    if key not in known:
        raise ConfigError(f"unknown key {key!r} (known: {', '.join(known)})")
    kinds = known[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ConfigError(f"{where} must be {' or '.join(WORDS[k] for k in kinds)}, "
                          f"not {value!r}")


def _read(path: Path, explicit: bool) -> dict[str, Any]:
    if not path.exists():
        if explicit:
            raise ConfigError(f"no config file at {path}")
        return {}
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {err} (TOML: key = value, text in "
                          "quotes)") from None
    for key, value in data.items():
        try:
            _check(key, value, key)
        except ConfigError as err:
            raise ConfigError(f"{path}: {err}") from None
    return data
