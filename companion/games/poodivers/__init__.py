"""Tokyo Poo Divers: the companion as scorekeeper (rules in ``rules.py``)."""

from companion.games.poodivers.rules import GAME, PooDivers, PooState

__all__ = ["GAME", "PooDivers", "PooState"]
