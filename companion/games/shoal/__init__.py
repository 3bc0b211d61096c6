"""Shoal: layouts, decks, goal-card scoring and the rules engine.

The layout (``layout.py``), deck (``deck.py``) and scoring (``scoring.py``) modules stand
on their own: the camera scoring uses them without the engine.
"""

from companion.games.shoal.rules import GAME, Shoal, ShoalState

__all__ = ["GAME", "Shoal", "ShoalState"]
