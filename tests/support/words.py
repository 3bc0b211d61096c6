"""What a player must never read in the log, the ledger or a prompt."""

from __future__ import annotations

import re

CODE = re.compile(r"\b(end_turn|forced_sell|choose_stock|remove_neutral|None)\b|_")
"""The engine's own names of actions and fields."""
ENGINE = re.compile(r"->|\bx\b|\bloss: \w+ \$|=|[{}\[\]]|\bNone\b|_")
"""The shapes of the engine's own notes ("blue $1,000 -> $2,000 x 4", "loss: ...")."""
