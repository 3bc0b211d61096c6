"""Scripted play for the reliability tests: a seeded table that picks its next action
from the ``legal`` list the API returns (a choice per field, plural fields a few of
them). Some picks are refused by the rules (a hostile takeover, a clue set that does
not fit): that is part of the script, a refused action must change nothing."""

from __future__ import annotations

import random
from typing import Any

GAMES = ("poodivers", "shark", "drshark", "shoal")
PLAYERS = ["Ann", "Ben", "Cy"]


def choose(legal: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any] | None:
    """One action built from the ``legal`` entries of a game view (``None`` if none)."""
    if not legal:
        return None
    entry = rnd.choice(legal)
    action: dict[str, Any] = {"type": entry["type"]}
    for key, values in (entry.get("choices") or {}).items():
        values = list(values)
        if not values:
            continue
        if key.endswith("s") and key not in ("dossiers",) and rnd.random() < 0.8:
            action[key] = rnd.sample(values, min(len(values), rnd.randint(1, 3)))
        else:
            action[key] = rnd.choice(values)
    return action
