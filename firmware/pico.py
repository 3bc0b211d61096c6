"""The clapper box's hardware layer on a Raspberry Pi Pico (MicroPython): pins, the USB
serial line, the main loop. All decisions are in :mod:`firmware.box`.

Wiring (GP numbers, see hardware.md): buttons START GP2, STOP GP3, NEXT GP4 to ground
(internal pull-ups); active buzzer through a transistor on GP15; solenoid MOSFET gate on
GP16 (10 kΩ pull-down); optional LED bar on GP6-GP10. Hold STOP while plugging the box
in to skip the firmware and reach the REPL (for mpremote).

Three guards keep the solenoid from staying powered: the pulse is ended by a one-shot
``machine.Timer`` (an interrupt, so a serial write blocked on a host that does not read
cannot stretch it), ``machine.WDT`` resets the Pico when the loop stops for
``WATCHDOG_MS``, and any exception switches everything off and resets the Pico (a crashed
firmware would otherwise sit at the REPL, echoing the host's lines back).
"""

import sys
import time

import machine

from firmware import protocol
from firmware.box import BUTTONS, Box

PINS = {"START": 2, "STOP": 3, "NEXT": 4, "buzzer": 15, "solenoid": 16,
        "leds": (6, 7, 8, 9, 10)}
LOOP_MS = 2
WATCHDOG_MS = 5000  # a blocked USB write gives up after 0.5 s; the RP2040 allows 8388

# MicroPython's wrapping millisecond counter; CPython (tests) has none.
ticks_ms = getattr(time, "ticks_ms", lambda: int(time.monotonic() * 1000))
ticks_diff = getattr(time, "ticks_diff", lambda a, b: a - b)
ticks_add = getattr(time, "ticks_add", lambda a, b: a + b)


class Parts:
    """The box's buttons, buzzer, solenoid and LEDs on ``machine.Pin``."""

    def __init__(self, pins=PINS, pulse_ms=80):
        self.pulse_ms = pulse_ms
        self._solenoid = machine.Pin(pins["solenoid"], machine.Pin.OUT, value=0)
        self._pulse_end = machine.Timer()
        self._end_pulse = self._switch_off  # bound once: an interrupt must not allocate
        self._buzzer = machine.Pin(pins["buzzer"], machine.Pin.OUT, value=0)
        self._leds = [machine.Pin(n, machine.Pin.OUT, value=0) for n in pins["leds"]]
        self.buttons = {name: machine.Pin(pins[name], machine.Pin.IN, machine.Pin.PULL_UP)
                        for name in BUTTONS}

    def solenoid(self, on):
        self._solenoid.value(1 if on else 0)
        if on:
            self._pulse_end.init(mode=machine.Timer.ONE_SHOT, period=self.pulse_ms,
                                 callback=self._end_pulse, hard=True)

    def _switch_off(self, timer):
        self._solenoid.value(0)

    def buzzer(self, on):
        self._buzzer.value(1 if on else 0)

    def leds(self, fraction):
        lit = int(fraction * len(self._leds) + 0.999)
        for i, led in enumerate(self._leds):
            led.value(1 if i < lit else 0)

    def pressed(self, name):
        return self.buttons[name].value() == 0


class Firmware:
    """One box on one serial line: ``step()`` is one turn of the main loop."""

    def __init__(self, parts, stdin, stdout, watchdog=None, poller=None):
        """``poller`` is what ``select.poll()`` gives (the default, on ``stdin``): its
        ``poll(ms)`` is true when a byte can be read."""
        self.parts = parts
        self.watchdog = watchdog
        self.box = Box(parts, pulse_ms=parts.pulse_ms, diff=ticks_diff, add=ticks_add)
        self.stdin = getattr(stdin, "buffer", stdin)
        self.stdout = stdout
        self.lines = protocol.LineBuffer(protocol.COMMANDS)
        if poller is None:
            import select
            poller = select.poll()
            poller.register(stdin, select.POLLIN)
        self.poller = poller

    def step(self):
        if self.watchdog is not None:
            self.watchdog.feed()
        now = ticks_ms()
        wait = min(LOOP_MS, self.box.next_due(now))
        out = []
        if self.poller.poll(wait):
            for line in self.lines.feed(self.stdin.read(1)):
                out += self.box.receive(line, ticks_ms())
        now = ticks_ms()
        for name in BUTTONS:
            out += self.box.button(name, self.parts.pressed(name), now)
        out += self.box.poll(now)
        for line in out:
            self.stdout.write(line + "\n")


def run(stdin=None, stdout=None, poller=None):
    """The firmware's main loop; everything is switched off if it ever ends, and an
    exception resets the Pico (it comes back as a fresh box: the host says HELLO)."""
    parts = Parts()
    if parts.pressed("STOP"):
        return  # safe mode: the REPL stays free for mpremote
    try:
        import micropython
        micropython.kbd_intr(-1)  # a stray 0x03 byte on the line must not stop the box
    except (ImportError, AttributeError):
        pass
    firmware = Firmware(parts, stdin or sys.stdin, stdout or sys.stdout,
                        machine.WDT(timeout=WATCHDOG_MS), poller)
    try:
        while True:
            firmware.step()
    except Exception:
        firmware.box.safe()
        machine.reset()
    finally:
        firmware.box.safe()
