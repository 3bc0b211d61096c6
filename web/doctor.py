"""``companion doctor``'s web checks: the settings ``companion serve`` reads, and the
table PIN (imported by :mod:`companion.doctor` when the doctor runs)."""

from __future__ import annotations

from collections.abc import Iterable

from companion.doctor import Check, Finding, Setup, problem, well
from web.commands import ConfigError, load_config

PIN_FILE = "table-pin"


def check_settings(setup: Setup) -> Iterable[Finding]:
    """What ``companion serve`` itself would refuse in the config file."""
    if setup.config_error or not setup.config_path.exists():
        return  # the config check has said it already
    try:
        load_config(setup.config_path, explicit=True)
    except ConfigError as err:
        yield problem("settings", str(err), "correct that key in the config file (README.md "
                      "lists the keys); `companion serve` refuses to start until then")
    else:
        yield well("settings", "every key is one `companion serve` knows")


def check_pin(setup: Setup) -> Iterable[Finding]:
    """A PIN guards the table's writes: set in config.toml, or kept in the data folder."""
    if setup.pin is not None:
        if not setup.pin.strip() or len(setup.pin) > 32:
            yield problem("pin", "the pin in the config file is empty or longer than 32 "
                          "characters", 'set pin = "4711" (1 to 32 characters)')
        else:
            yield well("pin", f"set in {setup.config_path}")
        return
    file = setup.data_dir / PIN_FILE
    if not file.exists():
        yield problem("pin", f"no table PIN yet ({file} does not exist), so the "
                      "dashboard cannot check who changes the games",
                      "start `companion serve` once (it makes a PIN and prints it), or set "
                      'pin = "..." in config.toml')
        return
    try:
        text = file.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError) as err:
        yield problem("pin", f"cannot read {file}: {err}",
                      f"delete {file}; `companion serve` makes a new PIN")
        return
    if not text or len(text) > 32:
        yield problem("pin", f"{file} holds no usable PIN",
                      f"delete {file}; `companion serve` makes a new PIN and prints it")
    elif file.stat().st_mode & 0o077:
        yield problem("pin", f"{file} can be read by other users of the Pi",
                      f"chmod 600 {file}")
    else:
        yield well("pin", f"set (kept in {file})")


CHECKS: list[Check] = [check_settings, check_pin]
