"""Helpers of the vision tests."""

from __future__ import annotations


def errors(truth: dict[str, str], read: dict[str, str]) -> int:
    """Cells read wrong, missed or made up."""
    return sum(truth.get(k) != read.get(k) for k in set(truth) | set(read))
