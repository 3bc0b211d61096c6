"""``companion serve``: the dashboard behind waitress, a production WSGI server.

Settings come from ``~/.config/companion/config.toml`` (``$XDG_CONFIG_HOME`` respected,
``--config`` to name another file) with the same keys as the flags; flags win::

    host = "0.0.0.0"
    port = 8000
    db = "/home/pi/companion.db"
    pin = "4711"
    timer = "serial:/dev/ttyACM0"     # browser | gpio | serial:URL
    camera = "0"                      # a camera index, device or image file
    show_pin = false                  # show the PIN on every start page, not just the Pi's
    threads = 64                      # each open live page holds one
    [hardware]                        # pins, port, durations: see hardware.md
    [vision]                          # files for "score from camera"
    deck = "/home/pi/shoal"
    faces = "/home/pi/poodivers"
    mat = "/home/pi/mat.json"

Without a PIN one is generated on first start, kept in the data folder (beside the
database) and printed, so it stays the same across restarts.
"""

from __future__ import annotations

import argparse
import importlib
import os
import secrets
import sys
import tomllib
from pathlib import Path
from typing import Any

import waitress

from companion.store import Store, StoreError, default_path
from companion.table import Table
from web import create_app

KEYS = {"host": str, "port": int, "db": str, "pin": str, "timer": str, "camera": str,
        "show_pin": bool, "threads": int, "vision": dict, "hardware": dict}
KIND_WORDS = {str: "text in quotes", int: "a whole number", bool: "true or false",
              dict: "a [table]"}
DEFAULTS: dict[str, Any] = {"host": "0.0.0.0", "port": 8000, "timer": "browser",
                            "camera": None, "show_pin": False, "threads": 64}


class ConfigError(ValueError):
    """A config file or flag the service cannot use; the message says what to fix."""


def config_path() -> Path:
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "companion" / "config.toml"


def load_config(path: Path, explicit: bool) -> dict[str, Any]:
    """The settings of a config file (none if the default file does not exist)."""
    if not path.exists():
        if explicit:
            raise ConfigError(f"no config file at {path}")
        return {}
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {err}") from None
    for key, value in data.items():
        kind = KEYS.get(key)
        if kind is None:
            raise ConfigError(f"{path}: unknown key {key!r} (known: {', '.join(KEYS)})")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ConfigError(f"{path}: {key} must be {KIND_WORDS[kind]}")
    return data


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """Defaults, then the config file, then the flags given on the command line."""
    out = dict(DEFAULTS)
    out.update(load_config(args.config or config_path(), explicit=args.config is not None))
    for key in ("host", "port", "db", "pin", "timer", "camera", "threads"):
        value = getattr(args, key)
        if value is not None:
            out[key] = value
    if not 1 <= int(out["port"]) <= 65535:
        raise ConfigError(f"port {out['port']} is not a TCP port")
    timer = str(out["timer"])
    if timer not in ("browser", "gpio") and not timer.startswith("serial:"):
        raise ConfigError(f"--timer is browser, gpio or serial:URL, not {timer!r}")
    return out


def table_pin(data_dir: Path, given: str | None) -> tuple[str, bool]:
    """The PIN given, else the one kept in ``data_dir``, else a new one (kept)."""
    if given:
        if not given.strip() or len(given) > 32:
            raise ConfigError("the PIN must be 1 to 32 characters")
        return given.strip(), False
    file = data_dir / "table-pin"
    if file.exists():
        return file.read_text("utf-8").strip(), False
    pin = f"{secrets.randbelow(10**6):06d}"
    data_dir.mkdir(parents=True, exist_ok=True)
    file.write_text(pin + "\n", "utf-8")
    file.chmod(0o600)
    return pin, True


def secret_key(data_dir: Path) -> str:
    """The cookie signing key, kept so entered PINs survive a restart."""
    file = data_dir / "dashboard-secret"
    if file.exists():
        return file.read_text("utf-8").strip()
    key = secrets.token_hex(32)
    file.write_text(key + "\n", "utf-8")
    file.chmod(0o600)
    return key


def open_timer(spec: str, table: Table, conf: dict[str, Any],
               state_file: Path | None = None) -> tuple[Any, str | None]:
    """The table timer of ``spec`` (``conf`` is the ``[hardware]`` table; ``state_file``
    keeps its binding and countdown over a restart), or ``None`` and why not."""
    try:
        hardware = importlib.import_module("companion.hardware")
    except ImportError as err:
        return None, f"the timer package is not installed ({err})"
    try:
        return hardware.open_timer(spec, table, conf, state_file=state_file), None
    except (OSError, ValueError, RuntimeError) as err:
        return None, f"cannot open the {spec} timer: {err}"


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        conf = settings(args)
        db = Path(conf["db"]).expanduser() if conf.get("db") else default_path()
        table = Table(Store(db))
        pin, new = table_pin(db.parent, conf.get("pin"))
        key = secret_key(db.parent)
    except (ConfigError, OSError) as err:
        print(f"companion: {err}", file=sys.stderr)
        return 2
    except StoreError as err:
        print(f"companion: {err}", file=sys.stderr)
        return 2
    spec = conf["timer"]
    state_file = db.parent / "timer-state.json"
    timer, problem = open_timer(spec, table, conf.get("hardware", {}), state_file)
    if problem and spec != "browser":  # hardware that fails must not stop the game night
        timer, still = open_timer("browser", table, conf.get("hardware", {}), state_file)
        if still is None:
            spec = "browser"
            print(f"companion: {problem}; using the browser timer instead (the dashboard "
                  "counts down and plays the clapper)", file=sys.stderr)
    if timer is None:
        print(f"companion: {problem}; the dashboard runs without a timer", file=sys.stderr)
    elif timer.status().get("device", {}).get("connection") == "reconnecting":
        print(f"companion: {timer.status()['device']['error']} (the timer uses the box as "
              "soon as it answers)", file=sys.stderr)
    app = create_app(table, {
        "TABLE_PIN": pin, "SECRET_KEY": key, "TIMER": timer, "TIMER_SPEC": spec,
        "TIMER_PROBLEM": problem, "CAMERA": conf.get("camera"),
        "VISION": conf.get("vision", {}), "SHOW_PIN": conf["show_pin"],
    })
    shown = "localhost" if conf["host"] in ("0.0.0.0", "::") else conf["host"]
    print(f"companion: serving on http://{shown}:{conf['port']}/ (database {db})",
          file=sys.stderr, flush=True)
    print(f"companion: table PIN {pin}" + (" (new, kept in " + str(db.parent) + ")"
                                           if new else ""), file=sys.stderr, flush=True)
    try:
        waitress.serve(app, host=conf["host"], port=int(conf["port"]),
                       threads=int(conf["threads"]), ident="companion",
                       connection_limit=max(100, 2 * int(conf["threads"])),
                       channel_timeout=60, _quiet=True)
    except OSError as err:
        print(f"companion: cannot listen on {conf['host']}:{conf['port']}: {err}",
              file=sys.stderr)
        return 2
    finally:
        if timer is not None and hasattr(timer, "close"):
            timer.close()
    return 0


def register(sub: Any) -> None:
    s = sub.add_parser("serve", help="serve the dashboard to the table")
    s.add_argument("--host", default=None, help="address to listen on (default 0.0.0.0)")
    s.add_argument("--port", type=int, default=None, help="TCP port (default 8000)")
    s.add_argument("--db", default=None,
                   help="the SQLite file (default: $COMPANION_DB or "
                        "~/.local/share/companion/companion.db)")
    s.add_argument("--pin", default=None, help="the table PIN for writes (default: one "
                   "generated on first start and kept)")
    s.add_argument("--timer", default=None,
                   help="browser (default), gpio or serial:URL (serial:/dev/ttyACM0)")
    s.add_argument("--camera", default=None, help="camera source for score-from-camera")
    s.add_argument("--config", type=Path, default=None,
                   help="config file (default ~/.config/companion/config.toml)")
    s.add_argument("--threads", type=int, default=None,
                   help="worker threads (each open live page holds one; default 64)")
    s.set_defaults(func=cmd_serve)
