"""Settings of the timer hardware: the ``[hardware]`` table of config.toml.

Every key is optional; the defaults are the wiring of hardware.md::

    [hardware]
    duration_s = 30        # length of a search
    warning_s = 3          # beeps in the last seconds
    pulse_ms = 80          # how long the clapper solenoid is energised
    hold_s = 3             # hold NEXT this long to undo the last action
    bounce_ms = 200        # a second press of a button within this is ignored
    baud = 115200          # clapper box (USB serial)

    [hardware.pins]        # BCM numbers (gpio backend)
    start = 17
    stop = 27
    next = 22
    buzzer = 23
    clapper = 24
    leds = []              # e.g. [5, 6, 13, 19, 26] for an LED countdown bar
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from companion.hardware.timer import BUTTONS


class HardwareError(RuntimeError):
    """Timer hardware that cannot be opened or used; the message names the pin or port
    and says what to check."""


DEFAULT_PINS: dict[str, Any] = {
    **dict(zip(BUTTONS, (17, 27, 22), strict=True)), "buzzer": 23, "clapper": 24, "leds": [],
}


@dataclass(frozen=True)
class HardwareConfig:
    duration_s: float = 30.0
    warning_s: float = 3.0
    pulse_ms: int = 80
    hold_s: float = 3.0
    bounce_ms: int = 200
    baud: int = 115200
    heartbeat_s: float = 1.0
    reply_timeout_s: float = 2.0
    reconnect_s: float = 0.5
    pins: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_PINS))

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any] | None) -> HardwareConfig:
        """Check and fill in a ``[hardware]`` table; raises :class:`HardwareError`."""
        config = dict(config or {})
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in config.items():
            if key not in known:
                raise HardwareError(
                    f"unknown hardware setting {key!r}: the settings are {', '.join(known)}")
            if key == "pins":
                values["pins"] = _pins(value)
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise HardwareError(f"hardware setting {key} must be a positive number, "
                                    f"not {value!r}")
            values[key] = int(value) if known[key].type == "int" else float(value)
        out = cls(**values)
        if not 1 <= out.duration_s <= 3600 or out.warning_s >= out.duration_s:
            raise HardwareError(f"a search lasts 1 to 3600 s and is longer than the warning "
                                f"(duration_s={out.duration_s}, warning_s={out.warning_s})")
        if out.pulse_ms > 1000:
            raise HardwareError(f"pulse_ms={out.pulse_ms} would cook the solenoid: "
                                "keep the clapper pulse at most 1000 ms")
        return out


def _pins(value: object) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise HardwareError("hardware.pins must be a table of BCM pin numbers")
    pins = dict(DEFAULT_PINS)
    for name, pin in value.items():
        if name not in DEFAULT_PINS:
            raise HardwareError(f"unknown pin {name!r}: the pins are {', '.join(DEFAULT_PINS)}")
        if name == "leds":
            if not isinstance(pin, list | tuple) or not all(_bcm(p) for p in pin):
                raise HardwareError(f"hardware.pins.leds must be a list of BCM numbers, "
                                    f"not {pin!r}")
            pins[name] = list(pin)
        elif not _bcm(pin):
            raise HardwareError(f"hardware.pins.{name} must be a BCM number 0-27, not {pin!r}")
        else:
            pins[name] = pin
    used = [p for k, p in pins.items() if k != "leds"] + list(pins["leds"])
    doubled = sorted({p for p in used if used.count(p) > 1})
    if doubled:
        raise HardwareError(f"BCM pin {doubled[0]} is given to two parts: "
                            "each button, the buzzer, the clapper and each LED need their own")
    return pins


def _bcm(pin: object) -> bool:
    return isinstance(pin, int) and not isinstance(pin, bool) and 0 <= pin <= 27
