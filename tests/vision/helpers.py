"""Helpers of the vision tests."""

from __future__ import annotations


def errors(truth: dict[str, str], read: dict[str, str], shoal: bool = False) -> int:
    """Cells read wrong, missed or made up; for a Shoal reading (``shoal``), at the shift
    of up to 2 cells that matches the truth best: both name cells from the shoal's own
    top-left, so a row lost along the top would rename every other cell."""
    def wrong(dx: int, dy: int) -> int:
        moved = {}
        for name, value in read.items():
            x, y = name.split(",")
            moved[f"{int(x) + dx},{int(y) + dy}"] = value
        return sum(truth.get(k) != moved.get(k) for k in set(truth) | set(moved))

    if not shoal:
        return sum(truth.get(k) != read.get(k) for k in set(truth) | set(read))
    return min(wrong(dx, dy) for dx in range(-2, 3) for dy in range(-2, 3))
