"""The stand-in for MicroPython's ``machine`` module (tests/firmware/board/machine.py, the
same file the MicroPython runs use), so the Pico layer runs under CPython."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import firmware

BOARD = Path(__file__).parent / "board"


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("machine", BOARD / "machine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "machine", module)
    monkeypatch.delitem(sys.modules, "firmware.pico", raising=False)
    monkeypatch.delattr(firmware, "pico", raising=False)  # re-imported on this machine
    yield module


def gp16(machine: ModuleType) -> list[str]:
    """The solenoid pin's values, in order."""
    return [change.split("=")[1] for _, change in machine.log if change.startswith("GP16=")]
