"""Dr. Shark: search referee and dossier keeper (rules in ``rules.py``)."""

from companion.games.drshark.rules import GAME, DrShark, DrSharkState

__all__ = ["GAME", "DrShark", "DrSharkState"]
