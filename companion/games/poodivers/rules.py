"""Tokyo Poo Divers: the companion keeps score and the turd supply.

A turn starts with a flip of any closed card: a blank ends the turn (its player may
``peek``), a sleeper means flip again, an object puts the diver there and scores 1 plus
the open objects in the eight star runs from it. Then the player banks, or dives: the
first dive flip is any closed neighbour of the diver and fixes the direction, each later
one the next cell on from the last object; the k-th object of the turn is worth k, a
sleeper banks, a blank loses the turn's points. With no closed card to flip next the
points are banked automatically. See ``rules/RULINGS.md`` for the supply and the end.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from companion.engine import (
    Action,
    BadSetup,
    BrokenRule,
    Ending,
    Game,
    Legal,
    Malformed,
    Rule,
    Termination,
)
from companion.games.poodivers import words
from companion.games.poodivers.layout import card_cells, rows_of
from companion.grid import DIRECTIONS, Cell, run

DECK = {"blank": 14, "sleeper": 14, "object": 42}
FACES = tuple(DECK)
SUPPLY = {"brown": 20, "golden": 30}
GOLDEN = 5


@dataclass(frozen=True)
class PooState:
    players: tuple[str, ...]
    rows: tuple[str, ...]
    cells: Mapping[Cell, str]         # card cell -> "closed" or its face
    supply: Mapping[str, int]
    holdings: Mapping[str, Mapping[str, int]]
    deal: Mapping[Cell, str] | None   # digital play: the hidden face of every cell
    seat: int = 0                     # seat of the player to act
    diving: bool = False              # an object was found this turn: bank or flip on
    found: int = 0                    # objects found this turn
    turn_points: int = 0
    diver: Cell | None = None
    direction: str | None = None
    last: Cell | None = None          # the last object found this turn
    peek_for: str | None = None       # who may peek now (right after their blank)
    ended: Ending | None = None

    @property
    def player(self) -> str:
        return self.players[self.seat]

    def closed(self) -> list[Cell]:
        return [c for c, face in self.cells.items() if face == "closed"]

    def shown(self) -> Counter[str]:
        """How many cards of each face are open."""
        return Counter(face for face in self.cells.values() if face != "closed")


class PooDivers(Game[PooState]):
    name = "poodivers"
    title = "Tokyo Poo Divers"
    min_players, max_players = 2, 8
    actions: ClassVar[Mapping[str, Rule[PooState]]]

    def prepare(self, players: Sequence[str], options: Mapping[str, Any],
                rng: random.Random) -> dict[str, Any]:
        """In digital play, deal a seeded shuffle of the 70-card deck onto the layout."""
        out = dict(options)
        if out.get("digital") is True and "deal" not in out:
            cells = card_cells(rows_of(out.get("layout", "square")))
            deck = [face for face, n in DECK.items() for _ in range(n)]
            rng.shuffle(deck)
            out["deal"] = {str(c): face for c, face in zip(cells, deck, strict=False)}
        return out

    def new(self, players: Sequence[str], options: Mapping[str, Any]) -> PooState:
        unknown = set(options) - {"layout", "digital", "deal"}
        if unknown:
            raise BadSetup(f"unknown option {sorted(unknown)[0]!r}: Tokyo Poo Divers takes "
                           "layout and digital")
        rows = rows_of(options.get("layout", "square"))
        digital = options.get("digital", False)
        if not isinstance(digital, bool):
            raise BadSetup("\"digital\" is true or false")
        cells = card_cells(rows)
        deal = _check_deal(options.get("deal"), cells) if digital else None
        if not digital and "deal" in options:
            raise BadSetup("a deal is only used in digital play (\"digital\": true)")
        names = tuple(self.check_players(players))
        return PooState(
            players=names, rows=rows, cells=dict.fromkeys(cells, "closed"),
            supply=dict(SUPPLY), holdings={p: {"brown": 0, "golden": 0} for p in names},
            deal=deal,
        )

    def resolve(self, state: PooState, action: Action, rng: random.Random) -> Action:
        """In digital play the companion reveals the flipped card's face."""
        if state.deal and action.get("type") == "flip" and "face" not in action:
            try:
                cell = Cell.parse(action.get("cell"))
            except ValueError:
                return action            # apply() says what is wrong with it
            if cell in state.deal:
                return {**action, "face": state.deal[cell]}
        return action

    # Queries -------------------------------------------------------------------

    def legal(self, state: PooState) -> list[Legal]:
        if state.ended:
            return []
        out = []
        if state.peek_for:
            out.append(Legal("peek", {"cell": _names(state.closed())}, player=state.peek_for))
        shown = state.shown()
        faces = {} if state.deal else {"face": [f for f in FACES if shown[f] < DECK[f]]}
        if state.diving:
            out.append(Legal("bank", player=state.player))
            out.append(Legal("flip", {"cell": _names(_dive_cells(state)), **faces},
                             state.player))
        else:
            out.append(Legal("flip", {"cell": _names(state.closed()), **faces}, state.player))
        return out

    def view(self, state: PooState) -> dict[str, Any]:
        return {
            "layout": list(state.rows),
            "cells": {str(c): face for c, face in state.cells.items()},
            "supply": dict(state.supply),
            "holdings": {p: dict(h) for p, h in state.holdings.items()},
            "turn_points": state.turn_points,
            "diver": ({"cell": str(state.diver), "direction": state.direction}
                      if state.diver else None),
            "phase": "over" if state.ended else ("dive" if state.diving else "flip"),
            "found": state.found,
            "peek_for": state.peek_for,
            "closed": len(state.closed()),
            "digital": state.deal is not None,
            "ended": state.ended.reason if state.ended else None,
        }

    def scores(self, state: PooState) -> dict[str, int]:
        return {p: h["brown"] + GOLDEN * h["golden"] for p, h in state.holdings.items()}

    def describe(self, before: PooState, action: Action, after: PooState) -> str:
        return words.describe(before, action, after)

    def current(self, state: PooState) -> str | None:
        return None if state.ended else state.player

    def ending(self, state: PooState) -> Ending | None:
        return state.ended

    def players(self, state: PooState) -> Sequence[str]:
        return state.players


# Helpers ------------------------------------------------------------------------


# Actions ------------------------------------------------------------------------


def _flip_action(state: PooState, action: Action) -> PooState:
    state = replace(state, peek_for=None)
    return _flip(state, _cell(state, action.get("cell")), _face(state, action))


def _bank_action(state: PooState, action: Action) -> PooState:
    if not state.diving:
        raise BrokenRule("there is nothing to bank: flip a card first")
    return _bank(replace(state, peek_for=None))


def _peek(state: PooState, action: Action) -> PooState:
    if state.peek_for is None:
        raise BrokenRule("a peek is only allowed right after drawing a blank")
    cell = _cell(state, action.get("cell"))
    if state.cells[cell] != "closed":
        raise BrokenRule(f"{cell} is already open: peek at a closed card")
    return replace(state, peek_for=None)


def _flip(state: PooState, cell: Cell, face: str) -> PooState:
    if state.cells[cell] != "closed":
        raise BrokenRule(f"{cell} is already open ({state.cells[cell]}): flip a "
                         "closed card")
    if state.diving:
        allowed = _dive_cells(state)
        if cell not in allowed:
            where = ("a closed card next to the diver" if state.direction is None
                     else f"{allowed[0]}, the next card {state.direction} of {state.last}")
            raise BrokenRule(f"{cell} is not on the dive: flip {where}, or bank")
    shown = state.shown()
    if shown[face] >= DECK[face]:
        raise BrokenRule(f"the deck has only {DECK[face]} {face} cards and "
                         f"{shown[face]} are open already: check {cell}'s face")
    cells = {**state.cells, cell: face}
    state = replace(state, cells=cells)
    if face == "blank":
        return _end_turn(replace(state, turn_points=0), peek=state.player)
    if face == "sleeper":
        return _bank(state) if state.diving else _end_if_no_cards(state)
    if not state.diving:
        points = 1 + sum(len(run(cells, cell, d, "object")) for d in DIRECTIONS)
        state = replace(state, diving=True, found=1, turn_points=points, diver=cell,
                        direction=None, last=cell)
    else:
        direction = state.direction or _direction(state.diver, cell)
        found = state.found + 1
        state = replace(state, found=found, turn_points=state.turn_points + found,
                        direction=direction, last=cell)
    return state if _dive_cells(state) else _bank(state)


PooDivers.actions = {
    "flip": Rule({"cell", "face"}, _flip_action, "Flip a manhole cover",
                 {"cell": "card", "face": "it shows"}),
    "bank": Rule((), _bank_action, "Safety first: bank the turn's points"),
    "peek": Rule({"cell"}, _peek, "Peek at a closed card", {"cell": "card"}),
}


def _names(cells: list[Cell]) -> list[str]:
    return [str(c) for c in cells]


def _cell(state: PooState, name: object) -> Cell:
    try:
        cell = Cell.parse(name)
    except ValueError as err:
        raise Malformed(str(err)) from None
    if cell not in state.cells:
        raise Malformed(f"there is no card at {cell} in this layout")
    return cell


def _face(state: PooState, action: Action) -> str:
    face = action.get("face")
    if state.deal is not None:
        cell = Cell.parse(action["cell"])
        if face is not None and face != state.deal[cell]:
            raise BrokenRule(f"in digital play the companion reveals the cards: {cell} "
                                f"is {state.deal[cell]}, not {face}")
        return state.deal[cell]
    if face not in FACES:
        raise Malformed(f"say what the card shows: face is one of {', '.join(FACES)}")
    assert isinstance(face, str)
    return face


def _check_deal(deal: object, cells: tuple[Cell, ...]) -> dict[Cell, str]:
    if not isinstance(deal, dict) or set(deal) != {str(c) for c in cells}:
        raise BadSetup("digital play needs a deal of every card cell (the companion makes "
                       "one when the game starts)")
    for cell, face in deal.items():
        if not isinstance(face, str) or face not in DECK:
            raise BadSetup(f"the deal puts {face!r} at {cell}: a card is one of "
                           f"{', '.join(FACES)}")
    for face, n in Counter(deal.values()).items():
        if n > DECK[face]:
            raise BadSetup(f"the deal has {n} {face} cards; the deck has {DECK[face]}")
    return {Cell.parse(c): face for c, face in deal.items()}


def _direction(diver: Cell | None, cell: Cell) -> str:
    assert diver is not None
    step = (cell.col - diver.col, cell.row - diver.row)
    return next(d for d, s in DIRECTIONS.items() if s == step)


def _dive_cells(state: PooState) -> list[Cell]:
    """The closed cards the next dive flip may take."""
    if state.direction is None:
        assert state.diver is not None
        around = [state.diver.step(d) for d in DIRECTIONS]
        return [c for c in around if state.cells.get(c) == "closed"]
    assert state.last is not None
    nxt = state.last.step(state.direction)
    return [nxt] if state.cells.get(nxt) == "closed" else []


def _bank(state: PooState) -> PooState:
    """Pay the turn's points from the supply and end the turn: a golden for each full
    five (five brown when golden has run out), brown for the rest; five brown held are
    exchanged for a golden as soon as the supply has one. What cannot be paid is lost."""
    supply, mine = dict(state.supply), dict(state.holdings[state.player])
    golden = min(state.turn_points // GOLDEN, supply["golden"])
    supply["golden"] -= golden
    mine["golden"] += golden
    owed = state.turn_points - GOLDEN * golden
    while True:
        # Five brown held go back for a golden at once, which may refill the supply's
        # brown for the rest of the payment.
        while mine["brown"] >= GOLDEN and supply["golden"] > 0:
            mine["brown"] -= GOLDEN
            supply["brown"] += GOLDEN
            mine["golden"] += 1
            supply["golden"] -= 1
        if owed == 0 or supply["brown"] == 0:
            break
        supply["brown"] -= 1
        mine["brown"] += 1
        owed -= 1
    state = replace(state, supply=supply, holdings={**state.holdings, state.player: mine})
    if supply["brown"] == 0 and supply["golden"] == 0:
        return replace(_end_turn(state),
                       ended=Ending(Termination.SUPPLY, "the turd supply is empty"))
    return _end_turn(state)


def _end_turn(state: PooState, peek: str | None = None) -> PooState:
    state = replace(state, seat=(state.seat + 1) % len(state.players), diving=False,
                    found=0, turn_points=0, direction=None, last=None,
                    peek_for=peek if state.closed() else None)
    return _end_if_no_cards(state)


def _end_if_no_cards(state: PooState) -> PooState:
    if not state.closed() and not state.ended:
        return replace(state, ended=Ending(Termination.LAST_CARD, "the last card is open"),
                       diving=False, turn_points=0)
    return state


GAME = PooDivers()
