"""Dr. Shark's timer and clapper: one state machine, three backends.

>>> timer = open_timer("browser", table)          # doctest: +SKIP
>>> timer.start(); timer.status()["state"]         # doctest: +SKIP
'running'

``spec`` is ``"browser"`` (no hardware: the dashboard plays the clapper sound),
``"gpio"`` (buttons, buzzer and solenoid on the Pi's pins, gpiozero) or
``"serial:URL"`` (the USB clapper box; a device path or any pyserial URL such as
``serial:/dev/ttyACM0``, ``serial:socket://host:port``, ``serial:hwgrep://2e8a``).
``config`` is the ``[hardware]`` table of config.toml (see :mod:`.config`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from companion.hardware.backend import Backend, BrowserBackend
from companion.hardware.clock import Clock, FakeClock
from companion.hardware.config import HardwareConfig, HardwareError
from companion.hardware.table_timer import NoSearchGame, TableTimer
from companion.hardware.timer import Timer, TimerState
from companion.table import Table

__all__ = [
    "Backend", "Clock", "FakeClock", "HardwareConfig", "HardwareError", "NoSearchGame",
    "TableTimer", "Timer", "TimerState", "open_backend", "open_timer",
]


def open_backend(spec: str, config: HardwareConfig, keep_trying: bool = False) -> Backend:
    """The backend named by ``spec``; raises :class:`HardwareError` naming the pin or port
    when the hardware cannot be opened. With ``keep_trying`` a clapper box that is not
    there yet is waited for (only a wrong device or firmware is refused at once)."""
    if not isinstance(spec, str):
        raise HardwareError(f"the timer must be browser, gpio or serial:URL, not {spec!r}")
    if spec == "browser":
        return BrowserBackend()
    if spec == "gpio":
        from companion.hardware.gpio import GpioBackend
        return GpioBackend(config)
    if spec.startswith("serial:"):
        url = spec.removeprefix("serial:")
        if not url:
            raise HardwareError("serial: needs the box's port, e.g. serial:/dev/ttyACM0")
        from companion.hardware.serial_box import SerialBackend
        return SerialBackend(url, config, keep_trying)
    raise HardwareError(f"unknown timer {spec!r}: use browser, gpio or serial:URL "
                        "(e.g. serial:/dev/ttyACM0)")


def open_timer(spec: str, table: Table, config: Mapping[str, Any] | None = None,
               clock: Clock | None = None, state_file: Path | None = None) -> TableTimer:
    """The table's timer on the backend named by ``spec`` (see the module docstring).

    ``config`` is the ``[hardware]`` table, or the whole config.toml (its ``hardware``
    table is used). A clapper box plugged in later is found when it comes (the service
    never falls back for good). ``state_file`` keeps the binding and the countdown across a restart
    of the service (see :class:`TableTimer`). Raises :class:`HardwareError` when
    ``config`` is wrong or the hardware cannot be opened. Close it with ``close()`` (or
    use it as a context manager).
    """
    if config is not None and isinstance(config.get("hardware"), Mapping):
        config = config["hardware"]
    settings = HardwareConfig.from_mapping(config)
    return TableTimer(table, open_backend(spec, settings, keep_trying=True), settings, clock,
                      state_file)
