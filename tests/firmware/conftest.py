"""A stand-in for MicroPython's ``machine`` module, so the Pico layer runs under CPython."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import ClassVar

import pytest


class FakePin:
    """``machine.Pin``: remembers its mode and every value written; inputs are set by
    the test through ``level`` (1 = released with the pull-up, 0 = pressed)."""

    IN, OUT, PULL_UP = "in", "out", "pull_up"
    board: ClassVar[dict[int, FakePin]] = {}

    def __init__(self, number: int, mode: str, pull: str | None = None,
                 value: int | None = None) -> None:
        self.number, self.mode, self.pull = number, mode, pull
        self.level = 1 if pull == self.PULL_UP else 0
        self.history: list[int] = []
        if value is not None:
            self.value(value)
        FakePin.board[number] = self

    def value(self, v: int | None = None) -> int:
        if v is None:
            return self.level
        assert self.mode == self.OUT, f"GP{self.number} is an input"
        self.level = v
        if not self.history or self.history[-1] != v:
            self.history.append(v)
        return v


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[FakePin]]:
    FakePin.board = {}
    module = types.ModuleType("machine")
    module.Pin = FakePin  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "machine", module)
    monkeypatch.delitem(sys.modules, "firmware.pico", raising=False)
    yield FakePin
