"""Fixtures of the Shoal tests (helpers are in helpers.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def write_record(tmp_path: Path) -> Callable[[dict[str, Any]], Path]:
    def write(rec: dict[str, Any]) -> Path:
        path = tmp_path / "record.json"
        path.write_text(json.dumps(rec), encoding="utf-8")
        return path
    return write
