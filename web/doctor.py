"""``companion doctor``'s web check: the table PIN that guards the dashboard's writes
(a ``companion.doctor`` entry point, imported when the doctor runs)."""

from __future__ import annotations

from collections.abc import Iterable

from companion import settings
from companion.doctor import Check, Finding, Setup, problem, well


def check_pin(setup: Setup) -> Iterable[Finding]:
    """A PIN guards the table's writes: set in config.toml, or kept in the data folder."""
    conf = setup.settings
    if conf.pin is not None:  # the config check refuses a PIN the rule does not allow
        yield well("pin", f"set in {conf.path}")
        return
    file = conf.pin_file
    if not file.exists():
        yield problem("pin", f"no table PIN yet ({file} does not exist), so the "
                      "dashboard cannot check who changes the games",
                      "start `companion serve` once (it makes a PIN and prints it), or set "
                      'pin = "..." in config.toml')
        return
    try:
        text = file.read_text("utf-8")
        settings.check_pin(text)
    except (OSError, UnicodeDecodeError) as err:
        yield problem("pin", f"cannot read {file}: {err}",
                      f"delete {file}; `companion serve` makes a new PIN")
    except settings.ConfigError:
        yield problem("pin", f"{file} holds no usable PIN",
                      f"delete {file}; `companion serve` makes a new PIN and prints it")
    else:
        if file.stat().st_mode & 0o077:
            yield problem("pin", f"{file} can be read by other users of the Pi",
                          f"chmod 600 {file}")
        else:
            yield well("pin", f"set (kept in {file})")


CHECKS: list[Check] = [check_pin]
