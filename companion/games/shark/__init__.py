"""Shark: the companion as the banker (rules in ``rules.py``, see its docstring)."""

from companion.games.shark.rules import GAME, Shark
from companion.games.shark.state import SharkState

__all__ = ["GAME", "Shark", "SharkState"]
