"""The ``gpio`` backend: buttons, buzzer and clapper solenoid on the Pi's own pins.

gpiozero picks the pin library (``GPIOZERO_PIN_FACTORY``: lgpio on a Pi 5, ``mock`` in
tests). Buttons pull up and close to ground. The solenoid's MOSFET gate is driven by an
``OutputDevice`` for one pulse of ``pulse_ms``; the pin is driven low again when the pulse
ends, when anything goes wrong while it is high, and on :meth:`GpioBackend.close`.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

from gpiozero import Button, Buzzer, Device, LEDBarGraph, OutputDevice
from gpiozero.exc import BadPinFactory, GPIOZeroError

from companion.hardware import pins as pin_library
from companion.hardware.backend import Backend
from companion.hardware.config import HardwareConfig, HardwareError
from companion.hardware.timer import HOLD, NEXT, START, STOP, Beat

# Beep patterns: (on seconds, off seconds, count).
WARNING_BEEP = (0.08, 0.0, 1)
TIME_UP_BEEP = (1.0, 0.0, 1)
REFUSED_BEEP = (0.05, 0.08, 3)
START_BEEP = (0.03, 0.0, 1)
# Filtered by the pin library (where it can); repeated presses are the timer's business.
CONTACT_BOUNCE_S = 0.01


class GpioBackend(Backend):
    """Timer hardware wired to the Pi (pins from ``config.pins``, BCM numbers)."""

    name = "gpio"

    def __init__(self, config: HardwareConfig) -> None:
        super().__init__()
        self.config = config
        self.pins = dict(config.pins)
        self._lock = threading.Lock()
        self._pulse_end: threading.Timer | None = None
        self._next_held = False
        self._devices: list[Device] = []
        try:
            self.start_button = self._open("START button", Button, self.pins[START],
                                           bounce_time=CONTACT_BOUNCE_S)
            self.stop_button = self._open("STOP button", Button, self.pins[STOP],
                                          bounce_time=CONTACT_BOUNCE_S)
            self.next_button = self._open("NEXT button", Button, self.pins[NEXT],
                                          bounce_time=CONTACT_BOUNCE_S,
                                          hold_time=config.hold_s)
            self.buzzer = self._open("buzzer", Buzzer, self.pins["buzzer"])
            self.clapper = self._open("clapper solenoid", OutputDevice, self.pins["clapper"],
                                      initial_value=False)
            self.leds: LEDBarGraph | None = None
            if self.pins["leds"]:
                self.leds = self._open("LED countdown", LEDBarGraph, *self.pins["leds"])
        except BaseException:
            self.close()
            raise
        # Runs before gpiozero's own exit handler (registered earlier, run later), so an
        # interpreter that exits mid-pulse switches the solenoid off first.
        atexit.register(self.close)
        self.start_button.when_pressed = lambda: self.on_button(START)
        self.stop_button.when_pressed = lambda: self.on_button(STOP)
        self.next_button.when_held = self._held
        self.next_button.when_released = self._released

    def _open(self, part: str, kind: Any, *pins: int, **kwargs: Any) -> Any:
        where = ", ".join(f"BCM {p}" for p in pins)
        try:
            pin_library.choose()  # keeps why gpiozero passed over lgpio, if it did
            device = kind(*pins, **kwargs)
        except BadPinFactory as err:
            why = pin_library.reasons()
            failure = (f"no GPIO library for the {part} on {where}: "
                       f"{'; '.join(why) or err}. On a Raspberry Pi: "
                       f"{pin_library.fix(why)}; elsewhere set GPIOZERO_PIN_FACTORY=mock "
                       "to try without pins")
        except (GPIOZeroError, OSError, ValueError) as err:
            failure = (f"cannot use {where} for the {part}: {err} "
                       "(change hardware.pins in config.toml)")
        else:
            self._devices.append(device)
            return device
        # Raised outside the except block, so the error does not keep gpiozero's half-made
        # device (and with it the pin's reservation) alive: a retry can claim the pin.
        raise HardwareError(failure)

    # NEXT: a short press confirms the turn, a long one undoes ---------------------

    def _held(self) -> None:
        self._next_held = True
        self.on_button(HOLD)

    def _released(self) -> None:
        held, self._next_held = self._next_held, False
        if not held:
            self.on_button(NEXT)

    # Timer events -------------------------------------------------------------------

    def running(self, ms_left: int, duration_ms: int) -> None:
        self._beep(START_BEEP)
        self._show(ms_left, duration_ms)

    def halted(self, ms_left: int) -> None:
        self._show(0, 1)

    def beat(self, beat: Beat, duration_ms: int) -> None:
        self._show(beat.ms_left, duration_ms)
        if beat.kind == "warning":
            self._beep(WARNING_BEEP)

    def clap(self) -> None:
        """Energise the solenoid now for ``pulse_ms``, then sound the buzzer."""
        self._pulse(self.config.pulse_ms / 1000)
        self._beep(TIME_UP_BEEP)
        self._show(0, 1)

    def refused(self, message: str) -> None:
        self._beep(REFUSED_BEEP)

    def status(self) -> dict[str, Any]:
        return {"pins": self.pins, "pin_factory": type(Device.pin_factory).__name__,
                "pin_factory_fallbacks": pin_library.reasons()}

    def _pulse(self, seconds: float) -> None:
        with self._lock:
            if self._pulse_end is not None:  # a pulse is under way: never stack two
                return
            try:
                self.clapper.on()
                self._pulse_end = threading.Timer(seconds, self._end_pulse)
                self._pulse_end.daemon = True
                self._pulse_end.start()
            except BaseException:
                self.clapper.off()
                self._pulse_end = None
                raise

    def _end_pulse(self) -> None:
        with self._lock:
            self._pulse_end = None
            if not self.clapper.closed:
                self.clapper.off()

    def _beep(self, pattern: tuple[float, float, int]) -> None:
        on, off, n = pattern
        self.buzzer.beep(on_time=on, off_time=off, n=n, background=True)

    def _show(self, ms_left: int, duration_ms: int) -> None:
        if self.leds is not None:
            self.leds.value = max(0.0, min(1.0, ms_left / duration_ms))

    def close(self) -> None:
        """Clapper off first, then release every pin. Safe to call twice."""
        atexit.unregister(self.close)
        with self._lock:
            if self._pulse_end is not None:
                self._pulse_end.cancel()
                self._pulse_end = None
            clapper = getattr(self, "clapper", None)
            if clapper is not None and not clapper.closed:
                clapper.off()
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()
