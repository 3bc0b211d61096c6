"""gpiozero's MockFactory with one pin held by another program, as lgpio reports a pin
claimed elsewhere. ``BUSY_PIN`` (a BCM number) names the pin.

A subprocess finds it the way gpiozero finds any pin library, through the
``gpiozero_pin_factories`` entry point: :func:`plugin_env` writes that entry point and
returns the environment (``GPIOZERO_PIN_FACTORY=busy``) that selects it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.mock import MockFactory

ROOT = Path(__file__).resolve().parents[2]


class BusyPinFactory(MockFactory):
    """Mock pins, but BCM ``$BUSY_PIN`` cannot be opened."""

    def pin(self, name: Any, pin_class: Any = None, **kwargs: Any) -> Any:
        busy = f"GPIO{int(os.environ['BUSY_PIN'])}"
        for _, info in self.board_info.find_pin(name):
            if info.name == busy:
                raise GPIOPinInUse(f"{busy} is busy: another program has claimed it")
        return super().pin(name, pin_class, **kwargs)


def plugin_env(folder: Path, pin: int) -> dict[str, str]:
    """Environment for a subprocess whose gpiozero uses :class:`BusyPinFactory`."""
    info = folder / "busy_pins-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: busy-pins\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[gpiozero_pin_factories]\nbusy = tests.hardware.busy_pins:BusyPinFactory\n")
    path = os.pathsep.join([str(folder), str(ROOT)])
    return {"GPIOZERO_PIN_FACTORY": "busy", "BUSY_PIN": str(pin), "PYTHONPATH": path}
