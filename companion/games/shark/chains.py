"""Placement and chains: lone buildings, chains, prices, the adjacency ban, takeovers.

A *group* is a company's buildings joined orthogonally (across area borders); a group
of two or more is a *chain*. Price of a company = $1000 x the buildings in its chains,
at least $1000 while any of its buildings is on the board, $0 with none, at most $15000.

Grey buildings (``neutral``) are barriers: they never join a group and do not count as
neighbours, so a building whose only neighbours are grey is a lone building (it earns
the $1000 lone bonus) and a black building may be placed next to grey.

Black buildings (``joker``) are placed lone; a black building belongs to the company
whose building is later placed next to it and counts in that company's groups (for the
price and for takeover sizes). A black building already in a chain stays with that chain
when another company's building is placed next to it: it is then part of the foreign
group the new building would take over. Two black buildings are never neighbours, and
after every placement a black building touches at most one company.

Hostile takeover (RULINGS.md): the group G that holds the new building must be strictly
larger than every other company's group next to any building of G. Then the placed
company's price rises and its bonus is paid, *then* those groups leave the game (black
buildings stay on the board and may join other chains), then prices are recomputed.

What stands on the board is a :class:`Buildings`, never changed once made: a placement
or a removal makes a new one, every other action keeps it, so the prices it works out
once serve every state until a building moves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any, NoReturn

from companion.engine import BrokenRule
from companion.games.shark.board import Board
from companion.games.shark.state import BLACK, COMPANIES, GREY, TOP_PRICE
from companion.grid import Cell

Owners = Mapping[Cell, str | None]
"""Black cell -> the company whose group it belongs to (None: a lone black building)."""


class Buildings(dict[Cell, str]):
    """The buildings on a board: cell -> company, ``"black"`` or ``"grey"``.

    A dict (read at dict speed) that refuses every change: a placement makes new
    ``Buildings``. So :attr:`prices`, the chains' formula over this board, is worked out
    once when first asked and is right for as long as the object lives.
    """

    def __init__(self, board: Board, cells: Mapping[Cell, str] | None = None) -> None:
        super().__init__(cells or {})
        self.board = board

    @cached_property
    def prices(self) -> Mapping[str, int]:
        """Every company's price (read-only)."""
        return MappingProxyType(prices(self, self.board))

    def without(self, cells: Iterable[Cell]) -> Buildings:
        """These buildings less the ones on ``cells``."""
        gone = set(cells)
        return Buildings(self.board, {c: b for c, b in self.items() if c not in gone})

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("the buildings on the board never change in place: make new "
                        "Buildings (a placement does)")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse


@dataclass(frozen=True)
class Plan:
    """A placement the rules allow, worked out before the board changes."""

    cell: Cell
    building: str
    group: frozenset[Cell] = frozenset()                       # G, with the new building
    foreign: tuple[tuple[str, frozenset[Cell]], ...] = ()      # groups G takes over
    lone: bool = False
    joins: frozenset[Cell] = frozenset()                       # lone black buildings G joins


def owner(buildings: Mapping[Cell, str], board: Board, cell: Cell) -> str | None:
    """The company a black building belongs to: the one next to it, if any."""
    return next((buildings[n] for n in board.neighbours[cell]
                 if buildings.get(n) in COMPANIES), None)


def owners(buildings: Mapping[Cell, str], board: Board) -> dict[Cell, str | None]:
    """Who each black building belongs to, on a board where none touches two companies."""
    return {cell: owner(buildings, board, cell)
            for cell, b in buildings.items() if b == BLACK}


def _group(buildings: Mapping[Cell, str], board: Board, start: Cell, company: str,
           owner_of: Callable[[Cell], str | None]) -> frozenset[Cell]:
    """The group of ``company`` that holds ``start`` (``owner_of``: a black cell's
    company)."""
    group, todo = {start}, [start]
    while todo:
        for n in board.neighbours[todo.pop()]:
            if n in group:
                continue
            b = buildings.get(n)
            if b == company or (b == BLACK and owner_of(n) == company):
                group.add(n)
                todo.append(n)
    return frozenset(group)


def groups(buildings: Mapping[Cell, str], board: Board, company: str,
           owned: Owners) -> list[frozenset[Cell]]:
    """The company's groups (lone buildings and chains), black members included."""
    seen: set[Cell] = set()
    out = []
    for start in [c for c, b in buildings.items() if b == company]:
        if start not in seen:
            group = _group(buildings, board, start, company, owned.get)
            seen |= group
            out.append(group)
    return out


def price(buildings: Mapping[Cell, str], board: Board, company: str, owned: Owners) -> int:
    """The price formula of RULINGS.md for one company."""
    chained = sum(len(g) for g in groups(buildings, board, company, owned) if len(g) >= 2)
    if chained:
        return min(TOP_PRICE, 1000 * chained)
    return 1000 if company in buildings.values() else 0


def prices(buildings: Mapping[Cell, str], board: Board, owned: Owners | None = None
           ) -> dict[str, int]:
    """Every company's price recomputed from the board."""
    own = owners(buildings, board) if owned is None else owned
    return {c: price(buildings, board, c, own) for c in COMPANIES}


def examine(buildings: Mapping[Cell, str], board: Board, cell: Cell, building: str) -> Plan:
    """Check a placement on an empty cell against the adjacency rules; the plan, or
    :class:`BrokenRule` naming the rule, the cell and the numbers."""
    near = [(n, buildings[n]) for n in board.neighbours[cell]
            if n in buildings and buildings[n] != GREY]
    if building == GREY:
        return Plan(cell, building)
    if building == BLACK:
        if near:
            n, b = near[0]
            raise BrokenRule(f"a black building may only be placed as a lone building: "
                                f"{cell} is next to the {b} building at {n}")
        return Plan(cell, building, lone=True)
    if not near:
        return Plan(cell, building, frozenset({cell}), lone=True)
    after = {**buildings, cell: building}
    # black buildings near the new one and those of the groups it joins, by owner
    owned: dict[Cell, str | None] = {}
    joins = set()
    for n, b in near:
        if b == BLACK:
            owned[n] = owner(buildings, board, n) or building
            if owned[n] == building:
                joins.add(n)

    def owner_of(black: Cell) -> str | None:
        if black not in owned:
            owned[black] = owner(buildings, board, black)
        return owned[black]

    mine = _group(after, board, cell, building, owner_of)
    foreign: dict[frozenset[Cell], str] = {}
    for member in sorted(mine):
        for n in board.neighbours[member]:
            there = after.get(n)
            other = owner_of(n) if there == BLACK else there
            if other in COMPANIES and other != building and not any(n in g for g in foreign):
                foreign[_group(buildings, board, n, other, owner_of)] = other
    for theirs, other in sorted(foreign.items(), key=lambda kv: -len(kv[0])):
        if len(theirs) >= len(mine):
            raise BrokenRule(
                f"{cell} is next to a {other} building and {building}'s chain "
                f"({len(mine)}) is not larger than {other}'s ({len(theirs)}): a hostile "
                f"takeover needs a strictly larger chain")
    taken = tuple(sorted(((o, g) for g, o in foreign.items()), key=lambda og: sorted(og[1])))
    return Plan(cell, building, mine, taken, lone=False, joins=frozenset(joins))


def place(buildings: Buildings, plan: Plan) -> tuple[Buildings, dict[str, int], int]:
    """Carry out a checked placement.

    Returns the buildings after any takeover, the buildings each company lost to it, and
    the placed company's price right after the building is placed, before the takeover's
    removals (the placer's bonus is paid at that price; 0 for black and grey). No other
    price moves until the removals; prices after the takeover are the returned
    buildings' ``prices``.
    """
    board = buildings.board
    after = {**buildings, plan.cell: plan.building}
    if plan.building in (BLACK, GREY):
        return Buildings(board, after), {}, 0
    owned = {**owners(buildings, board), **dict.fromkeys(plan.joins, plan.building)}
    raised = price(after, board, plan.building, owned)
    lost: dict[str, int] = {}
    for company, group in plan.foreign:
        for cell in group:
            if after[cell] == company:   # black buildings are never removed
                del after[cell]
                lost[company] = lost.get(company, 0) + 1
    return Buildings(board, after), lost, raised


def pioneers(buildings: Mapping[Cell, str], board: Board, cell: Cell, building: str) -> bool:
    """Is this the first building of its company in the cell's area (``pioneer``)?

    Black and grey buildings never pioneer; a black building that belongs to the company
    does not count as one of its buildings in the area.
    """
    if building not in COMPANIES:
        return False
    area = board.areas[cell]
    return not any(b == building and board.areas[c] == area for c, b in buildings.items())

