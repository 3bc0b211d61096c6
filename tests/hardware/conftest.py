"""Fixtures of the timer tests: a table with a Dr. Shark game at the start of a turn."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin

from companion.hardware import FakeClock
from companion.store import Store
from companion.table import Table


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    store = Store(tmp_path / "companion.db")
    yield Table(store)
    store.close()


def new_game(table: Table) -> int:
    """A two-player Dr. Shark game where Ann has moved and may start her search."""
    session = table.create("drshark", ["Ann", "Ben"], seed=7)
    table.play(session.id, {"type": "move", "space": "A-light"})
    return session.id


def log_types(table: Table, sid: int) -> list[str]:
    return [a["type"] for a in table.store.actions(sid)]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


class Waiter:
    """Collects timer status changes; ``wait_for(state)`` blocks until one arrives."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self._cond = threading.Condition()

    def __call__(self, status: dict[str, Any]) -> None:
        with self._cond:
            self.seen.append(status)
            self._cond.notify_all()

    def wait_until(self, test: Callable[[dict[str, Any]], bool],
                   timeout: float = 5) -> dict[str, Any]:
        with self._cond:
            found = self._cond.wait_for(
                lambda: next((s for s in self.seen if test(s)), None), timeout)
        assert found, f"timer never reached that state; saw {self.seen}"
        return found

    def wait_for(self, state: str, timeout: float = 5) -> dict[str, Any]:
        return self.wait_until(lambda s: s["state"] == state, timeout)



class RecordingPin(MockPin):
    """gpiozero's mock pin that also wakes tests waiting for its state history."""

    changed = threading.Condition()

    def _change_state(self, value: bool) -> bool:
        with self.changed:
            done: bool = super()._change_state(value)
            self.changed.notify_all()
            return done

    def wait_states(self, count: int, timeout: float = 5) -> list[bool]:
        """Block until the pin has recorded ``count`` states (its first included)."""
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.states) >= count, timeout), (
                f"pin {self.info.name} only went through {self.states}")
            return [s.state for s in self.states]


@pytest.fixture
def mock_pins() -> Iterator[MockFactory]:
    """gpiozero's MockFactory as the pin factory, as on a Pi without the hardware."""
    Device.pin_factory = MockFactory(pin_class=RecordingPin)
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = None
