"""The registry of games by name. Each game lives in its own subpackage that exposes
``GAME``, an instance of :class:`companion.engine.Game`."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.engine import Game

NAMES = ("drshark", "shark", "poodivers", "shoal")


class UnknownGame(ValueError):
    """A game name the companion does not know."""


def get(name: object) -> Game[Any]:
    """The engine of the game called ``name`` (``"shark"``, ``"poodivers"`` …)."""
    if not isinstance(name, str) or name not in NAMES:
        raise UnknownGame(f"unknown game {name!r}: choose one of {', '.join(NAMES)}")
    module = importlib.import_module(f"companion.games.{name}")
    game: Game[Any] = module.GAME
    return game


def available() -> list[str]:
    """Names of the games, in the order the start page lists them."""
    return list(NAMES)
