"""What a timer backend does, and the ``browser`` backend that does nothing physical.

A backend turns timer events into buzzes, clapper pulses and LEDs, and reports buttons
through the ``on_button`` callback given to :meth:`Backend.attach`: ``"start"``,
``"stop"``, ``"next"`` (a short press) and ``"hold"`` (NEXT held to undo). A backend
whose device keeps time itself (the clapper box) reports its own expiry through
``on_expired``. Every method has a no-op default.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.hardware.timer import Beat

ButtonHandler = Callable[[str], None]
ExpiredHandler = Callable[[], None]


def _ignore_button(name: str) -> None:
    """No one listens yet."""


def _ignore_expired() -> None:
    """No one listens yet."""


class Backend:
    """Base class: a timer without hardware. Subclasses override what they drive."""

    name = "browser"

    def __init__(self) -> None:
        self.on_button: ButtonHandler = _ignore_button
        self.on_expired: ExpiredHandler = _ignore_expired

    def attach(self, on_button: ButtonHandler, on_expired: ExpiredHandler) -> None:
        self.on_button, self.on_expired = on_button, on_expired

    def running(self, ms_left: int, duration_ms: int) -> None:
        """A search started or resumed with ``ms_left`` to go."""

    def halted(self, ms_left: int) -> None:
        """The search was stopped, paused or taken back."""

    def beat(self, beat: Beat, duration_ms: int) -> None:
        """A whole second passed (``tick``) or a warning beep is due (``warning``)."""

    def clap(self) -> None:
        """Time is up: slam the clapper and sound the buzzer, now."""

    def refused(self, message: str) -> None:
        """A button press the table did not accept: an error beep."""

    def status(self) -> dict[str, Any]:
        """JSON-safe details for the dashboard (connection state, port …)."""
        return {}

    def close(self) -> None:
        """Release the hardware (safe to call twice)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class BrowserBackend(Backend):
    """No hardware: the dashboard shows the countdown and plays the clapper sound from
    the timer's status changes."""

    name = "browser"
