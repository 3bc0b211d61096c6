"""``companion doctor``: check the installation and say how to fix what is wrong.

Each check looks at one thing (Python and the packages, the config file, the GPIO pins or
the clapper box, the database and the disk; the camera and the PIN through the other
packages' checks) and returns :class:`Finding` s: what it saw and, for a problem, what to
do. The command prints them all and exits 0 only when every finding is well.

Checks of other packages are modules with a ``CHECKS`` list named by the
``companion.doctor`` entry points of pyproject.toml, imported only when the doctor runs.
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import json
import os
import platform
import shutil
import sqlite3
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from companion.settings import ConfigError, Settings, config_path

DIST = "table-companion"
PLUGINS = "companion.doctor"
"""Entry-point group of modules with a ``CHECKS`` list of more checks."""
MIN_FREE_BYTES = 200_000_000
REINSTALL = "run `make install` in the companion's folder (or `.venv/bin/pip install -e .`)"
SERVICE_HOLDS = ("if `companion serve` is running it holds the hardware: stop it first "
                 "(sudo systemctl stop companion) and run the doctor again")


@dataclass(frozen=True)
class Finding:
    """One thing checked: ``ok``, what was seen, and for a problem what to do."""

    check: str
    ok: bool
    detail: str
    fix: str = ""


def well(check: str, detail: str) -> Finding:
    return Finding(check, True, detail)


def problem(check: str, detail: str, fix: str) -> Finding:
    return Finding(check, False, detail, fix)


@dataclass
class Setup:
    """What the service would run with: the config file's settings, then the flags; and
    why the file cannot be used, if so (the defaults and flags are checked then)."""

    settings: Settings
    config_error: str | None = None
    min_free: int = MIN_FREE_BYTES


Check = Callable[[Setup], Iterable[Finding]]


def load_setup(config: Path | None = None, db: Path | None = None, timer: str | None = None,
               camera: str | None = None) -> Setup:
    """The settings ``companion serve`` would use (a file it would refuse is kept as an
    error for the config check to report)."""
    flags: dict[str, Any] = {"db": str(db) if db else None, "timer": timer, "camera": camera}
    try:
        return Setup(Settings.load(config, **flags))
    except ConfigError as err:
        given = {k: v for k, v in flags.items() if v is not None}
        return Setup(Settings(path=config or config_path(), **given), str(err))


# Python and packages -----------------------------------------------------------------

def check_python(setup: Setup, version: str | None = None) -> Iterable[Finding]:
    from packaging.specifiers import SpecifierSet
    version = version or platform.python_version()
    try:
        needed = metadata.metadata(DIST)["Requires-Python"] or ">=3.11"
    except metadata.PackageNotFoundError:
        needed = ">=3.11"
    if SpecifierSet(needed).contains(version, prereleases=True):
        yield well("python", f"Python {version} ({sys.executable})")
    else:
        yield problem("python", f"Python {version} is too old: the companion needs "
                      f"Python {needed}",
                      "install a newer Python (Raspberry Pi OS bookworm has 3.11) and "
                      "create the virtualenv again: rm -r .venv && make install")


def check_packages(setup: Setup) -> Iterable[Finding]:
    from packaging.requirements import InvalidRequirement, Requirement
    try:
        requires = metadata.requires(DIST) or []
    except metadata.PackageNotFoundError:
        yield problem("packages", f"the companion ({DIST}) is not installed in {sys.prefix}",
                      REINSTALL)
        return
    seen = []
    for text in requires:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue  # the dev extras are for running the tests only
        try:
            have = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            yield problem("packages", f"{req.name} is missing (needed: {req.specifier})",
                          REINSTALL)
            continue
        if not req.specifier.contains(have, prereleases=True):
            yield problem("packages", f"{req.name} {have} is installed, the companion needs "
                          f"{req.name}{req.specifier}", REINSTALL)
            continue
        seen.append(f"{req.name} {have}")
    if seen:
        yield well("packages", ", ".join(seen))


# Config, timer hardware ----------------------------------------------------------------

def check_config(setup: Setup) -> Iterable[Finding]:
    path = setup.settings.path
    if setup.config_error:
        yield problem("config", setup.config_error,
                      "fix the file (TOML: key = value, text in quotes) or move it aside; "
                      "the keys are described in README.md; `companion serve` refuses to "
                      "start until then")
    elif path.exists():
        yield well("config", f"{path}: every key is one `companion serve` knows")
    else:
        yield well("config", f"no {path}: the defaults are used")


def _hardware_config(setup: Setup) -> Any:
    from companion.hardware import HardwareConfig
    return HardwareConfig.from_mapping(setup.settings.hardware)


def check_timer(setup: Setup) -> Iterable[Finding]:
    """Open the configured timer hardware once (the pins, or the box's handshake)."""
    from companion.hardware import HardwareError, open_backend
    from companion.hardware import pins as pin_library
    spec = setup.settings.timer
    if spec == "browser":
        yield well("timer", "browser: no timer hardware (the dashboard plays the clapper)")
        return
    try:
        backend = open_backend(spec, _hardware_config(setup))
    except HardwareError as err:
        where = "the GPIO pins" if spec == "gpio" else "the clapper box"
        fix = ("check the wiring and hardware.pins in config.toml (hardware.md, 'Wiring "
               "on the Pi')" if spec == "gpio" else
               "check the USB cable and the port (`companion hw list-ports`; "
               "hardware.md, 'The USB clapper box')")
        yield problem("timer", f"{where} cannot be used: {err}", f"{fix}; {SERVICE_HOLDS}")
        return
    try:
        status = backend.status()
    finally:
        backend.close()
    if spec == "gpio":
        pins = ", ".join(f"{k} BCM {v}" for k, v in status["pins"].items()
                         if k != "leds" or v)
        factory = status["pin_factory"]
        fell_back = pin_library.fallback(factory, status["pin_factory_fallbacks"])
        if fell_back:
            yield problem("timer", fell_back, pin_library.fix(status["pin_factory_fallbacks"]))
            return
        note = (" (mock pins: nothing physical is driven)" if factory == "MockFactory"
                else "")
        yield well("timer", f"gpio: pin factory {factory}{note}; {pins}")
    else:
        yield well("timer", f"clapper box at {status['url']} answered, firmware "
                   f"{status['firmware']}")


def check_pin_release(setup: Setup) -> Iterable[Finding]:
    """For the gpio timer: a released output must not keep the solenoid on."""
    if setup.settings.timer != "gpio":
        return
    from companion.hardware.pins import release
    ok, detail, fix = release()
    yield well("pin release", detail) if ok else problem("pin release", detail, fix)


# Database and disk -----------------------------------------------------------------------

def check_database(setup: Setup) -> Iterable[Finding]:
    from companion.store import Store, StoreError
    path = setup.settings.db_path
    restore = ("restore the latest backup (README.md, 'Backups'), or move the file aside "
               "to start with an empty database")
    if not path.exists():
        yield well("database", f"no database yet at {path}: `companion serve` creates it")
    else:
        try:
            with Store(path) as store:
                result = store.integrity()
                games = len(store.sessions()) if result == "ok" else 0
        except (StoreError, sqlite3.Error) as err:
            yield problem("database", f"{path} cannot be read: {err}", restore)
        else:
            size = path.stat().st_size
            if result != "ok":
                yield problem("database", f"{path} is damaged: {result}", restore)
            elif not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
                yield problem("database", f"{path} or its folder cannot be written by this "
                              "user", f"run the doctor as the service's user, or give that "
                              f"user the folder: sudo chown -R companion {path.parent}")
            else:
                yield well("database", f"{path}: integrity ok, {games} games, "
                           f"{size / 1e6:.1f} MB")
    yield from check_disk(setup)


def check_disk(setup: Setup) -> Iterable[Finding]:
    folder = setup.settings.data_dir
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    free = shutil.disk_usage(folder).free
    if free < setup.min_free:
        yield problem("disk", f"only {free / 1e6:.0f} MB free on the disk of {folder}",
                      f"free at least {setup.min_free / 1e6:.0f} MB (old photos, logs: "
                      "`sudo journalctl --vacuum-size=50M`): a full disk stops the game log")
    else:
        yield well("disk", f"{free / 1e9:.1f} GB free on the disk of {folder}")


CHECKS: list[Check] = [check_python, check_packages, check_config, check_timer,
                       check_pin_release, check_database]


def all_checks() -> list[tuple[str, Check | None, str | None]]:
    """Every check: the core ones, then those of the plugins (or why a plugin failed)."""
    out: list[tuple[str, Check | None, str | None]] = [
        (c.__name__, c, None) for c in CHECKS]
    for point in sorted(metadata.entry_points(group=PLUGINS), key=lambda ep: ep.name):
        try:
            module = point.load()
        except ImportError as err:
            out.append((point.name, None, f"the {point.name} checks cannot be imported: "
                        f"{err}"))
            continue
        out += [(c.__name__, c, None) for c in module.CHECKS]
    return out


def run(setup: Setup) -> list[Finding]:
    findings: list[Finding] = []
    for name, check, broken in all_checks():
        if check is None:
            findings.append(problem(name.split(".")[0], broken or name, REINSTALL))
            continue
        try:
            findings += list(check(setup))
        except Exception as err:  # a check that breaks is itself a finding, not a crash
            findings.append(problem(name.removeprefix("check_"),
                                    f"the check failed: {type(err).__name__}: {err}",
                                    "report this with the output of `companion doctor`"))
    return findings


def report(findings: list[Finding]) -> str:
    lines = []
    for f in findings:
        lines.append(f"{'ok ' if f.ok else 'BAD'}  {f.check}: {f.detail}")
        if not f.ok:
            lines.append(f"     fix: {f.fix}")
    bad = sum(not f.ok for f in findings)
    lines.append("all well" if not bad else f"{bad} problem{'s' * (bad > 1)} found")
    return "\n".join(lines)


def cmd_doctor(args: argparse.Namespace) -> int:
    setup = load_setup(args.config, args.db, args.timer, args.camera)
    setup.min_free = int(args.min_free_mb * 1e6)
    findings = run(setup)
    if args.json:
        print(json.dumps({"ok": all(f.ok for f in findings),
                          "findings": [asdict(f) for f in findings]}, ensure_ascii=False))
    else:
        print(report(findings))
    return 0 if all(f.ok for f in findings) else 1


def register(sub: Any) -> None:
    d = sub.add_parser("doctor", help="check the installation, the hardware, the camera, "
                       "the database and the PIN, and say how to fix what is wrong")
    d.add_argument("--config", type=Path, default=None,
                   help="config file (default: ~/.config/companion/config.toml)")
    d.add_argument("--db", type=Path, default=None, help="the SQLite file to check")
    d.add_argument("--timer", default=None, help="browser, gpio or serial:URL "
                   "(default: the config file's, else browser)")
    d.add_argument("--camera", default=None, help="camera to check (default: the config "
                   "file's, else none)")
    d.add_argument("--min-free-mb", type=float, default=MIN_FREE_BYTES / 1e6,
                   help="disk space below which the doctor complains (default: %(default)g)")
    d.add_argument("--json", action="store_true", help="print the findings as JSON")
    d.set_defaults(func=cmd_doctor)
