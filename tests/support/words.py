"""What a player must never read in the log, the ledger or a prompt."""

from __future__ import annotations

import re
from typing import Any

CODE = re.compile(r"\b(end_turn|forced_sell|choose_stock|remove_neutral|None)\b|_")
"""The engine's own names of actions and fields."""
ENGINE = re.compile(r"->|\bx\b|\bloss: \w+ \$|=|[{}\[\]]|\bNone\b|_")
"""The shapes of the engine's own notes ("blue $1,000 -> $2,000 x 4", "loss: ...")."""


def drshark_clue(catalogue: dict[str, Any], clue_id: str) -> str:
    """A Dr. Shark clue as the log names it, from the view's catalogue: "treasure map c
    (heart, Maps)", "a shark (star, Maps)"."""
    clue = next(c for c in catalogue["clues"] if c["id"] == clue_id)
    looks = f"({clue['shape']}, {catalogue['categories'][clue['category']]['name']})"
    if clue.get("shark"):
        return f"a shark {looks}"
    return f"{clue['evidence'].replace('-', ' ')} {clue['part']} {looks}"
