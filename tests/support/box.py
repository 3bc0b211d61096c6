"""The clapper box's parts as recorders, for the firmware tests under CPython."""

from __future__ import annotations


class Parts:
    def __init__(self) -> None:
        self.solenoid_on: list[bool] = []
        self.buzzer_on: list[bool] = []
        self.fraction = 0.0

    def solenoid(self, on: bool) -> None:
        self.solenoid_on.append(on)

    def buzzer(self, on: bool) -> None:
        self.buzzer_on.append(on)

    def leds(self, fraction: float) -> None:
        self.fraction = fraction
