"""Shoal: layouts, decks, goal-card scoring and the rules engine.

The layout (``layout.py``), deck (``deck.py``) and scoring (``scoring.py``) modules stand
on their own: the camera scoring uses them without the engine, so the engine's names
below are imported when first asked for, not with the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.games.shoal.rules import GAME, Shoal, ShoalState

__all__ = ["GAME", "Shoal", "ShoalState"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from companion.games.shoal import rules
        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
