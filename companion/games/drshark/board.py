"""Dr. Shark's pool: search areas, their spaces and their search methods, as data.

A board is ``"default"`` (``board.json``: areas A-E, light and dark spaces) or an inline
``{"spaces": [{"id", "area", "dark"}], "methods": {area: method}}`` with methods from
:data:`METHODS`. With 2 or 3 players only the light spaces are used.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from companion.engine import BadSetup

METHODS = ("shape", "different", "same", "fistful", "observation")
DARK_FROM = 4
"""Dark spaces are used from four players on."""


@dataclass(frozen=True)
class Space:
    id: str
    area: str
    dark: bool


@dataclass(frozen=True)
class Board:
    spaces: Mapping[str, Space]
    methods: Mapping[str, str]        # area -> search method

    def usable(self, players: int) -> list[Space]:
        """The spaces in play for this many players."""
        return [s for s in self.spaces.values() if players >= DARK_FROM or not s.dark]

    def to_json(self) -> dict[str, object]:
        return {"spaces": [{"id": s.id, "area": s.area, "dark": s.dark}
                           for s in self.spaces.values()],
                "methods": dict(self.methods)}


@cache
def default() -> Board:
    text = resources.files(__package__).joinpath("board.json").read_text("utf-8")
    return load(json.loads(text))


def load(option: object) -> Board:
    """The board an option names or holds; ``BadSetup`` says what to fix."""
    if option is None or option == "default":
        return default()
    if not isinstance(option, dict):
        raise BadSetup("board is \"default\" or an object with \"spaces\" and \"methods\" "
                       "(see docs/drshark.md)")
    methods = option.get("methods")
    if not isinstance(methods, dict) or not methods:
        raise BadSetup("board: \"methods\" must map each area to a search method, e.g. "
                       "{\"A\": \"shape\"}")
    for area, method in methods.items():
        if method not in METHODS:
            raise BadSetup(f"board: area {area!r} has method {method!r}; methods are "
                           f"{', '.join(METHODS)}")
    raw = option.get("spaces")
    if not isinstance(raw, list) or not raw:
        raise BadSetup("board: \"spaces\" must be a list of {id, area, dark}")
    spaces: dict[str, Space] = {}
    for i, spec in enumerate(raw, 1):
        if not isinstance(spec, dict):
            raise BadSetup(f"board: space {i} must be an object {{id, area, dark}}")
        sid, area, dark = spec.get("id"), spec.get("area"), spec.get("dark", False)
        if not isinstance(sid, str) or not sid:
            raise BadSetup(f"board: space {i} needs an \"id\" such as \"A-light\"")
        if sid in spaces:
            raise BadSetup(f"board: two spaces are called {sid!r}")
        if not isinstance(area, str) or area not in methods:
            raise BadSetup(f"board: space {sid!r} is in area {area!r}, which has no search "
                           "method in \"methods\"")
        if not isinstance(dark, bool):
            raise BadSetup(f"board: space {sid!r}: \"dark\" is true or false")
        spaces[sid] = Space(sid, area, dark)
    empty = set(methods) - {s.area for s in spaces.values()}
    if empty:
        raise BadSetup(f"board: area {sorted(empty)[0]!r} has a method but no space")
    return Board(spaces, dict(methods))


def check_room(board: Board, players: int) -> None:
    """Every spy must always find an empty space in another area: with the largest area
    holding k usable spaces, the board needs at least players + k of them."""
    usable = board.usable(players)
    largest = max(Counter(s.area for s in usable).values(), default=0)
    if len(usable) < players + largest:
        raise BadSetup(f"board: {players} players need at least {players + largest} usable "
                       f"spaces on this board (it has {len(usable)}; dark spaces count from "
                       f"{DARK_FROM} players on)")
