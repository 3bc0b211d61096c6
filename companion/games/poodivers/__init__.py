"""Tokyo Poo Divers: the companion as scorekeeper (rules in ``rules.py``).

The layouts (``layout.py``) stand on their own: the camera reader uses them without the
engine, so the engine's names below are imported when first asked for, not with the
package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.games.poodivers.rules import GAME, PooDivers, PooState

__all__ = ["GAME", "PooDivers", "PooState"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from companion.games.poodivers import rules
        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
