"""Turn flow: the small state machine of a turn, and the end of the game.

::

    choose_stock (setup, each player once, seat order)
    trade_before --roll--> place --place/remove_neutral--> [forced_sale]* --> trade_after
                   (no legal cell: the placement is skipped) ------------------^
    pioneer: a successful pioneer goes --> pioneer_roll --roll--> place (once a turn)
    trade_after --end_turn--> the next player's trade_before, or over

Buying and selling are open in ``trade_before`` and ``trade_after`` (5 shares bought a
turn in all). The game ends at the end of a turn in which a price reached $15000, a
company's building supply ran out, or a company's share supply ran out (the condition is
remembered once met, even if undone later in the turn: RULINGS.md "during a turn"), and
at once when only one player is not bankrupt.

Pioneer: the pioneer's $1000 is the lone-building bonus of the rulebook ("earns $1000 as
a Lone Building bonus"); it is not paid twice, and when the pioneering building raises
its company's price the chain bonus is paid instead, as for any lone building. The
second roll is mandatory and comes after the first placement's losses are settled.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace

from companion.engine import BrokenRule, Ending, IllegalAction, Termination
from companion.games.shark import chains, dice, market
from companion.games.shark.state import (
    BLACK,
    COMPANIES,
    FORCED_SALE,
    GREY,
    OVER,
    PIONEER_ROLL,
    PLACE,
    TOP_PRICE,
    TRADE_AFTER,
    TRADE_BEFORE,
    Payment,
    SharkState,
)
from companion.grid import Cell
from companion.words import money


def start(state: SharkState) -> SharkState:
    """After setup: the first player (the banker) starts."""
    return replace(state, step=TRADE_BEFORE, seat=0)


def choices(state: SharkState) -> dict[str, list[Cell]]:
    """For the rolled dice: building -> the cells it may legally go on, and
    ``"remove_neutral"`` -> the grey buildings that may be removed."""
    out: dict[str, list[Cell]] = {}
    for what, cell in _placements(state):
        out.setdefault(what, []).append(cell)
    return out


def _placements(state: SharkState) -> Iterator[tuple[str, Cell]]:
    """(building, cell) for every placement the rolled dice allow, building by building
    and the cells row by row, then ``("remove_neutral", cell)`` for each grey building
    that may be removed. Lazy: a roll only asks whether there is a first one."""
    assert state.roll is not None
    face, area = state.roll
    buildings, remove = dice.allowed(face, state.variants, state.supply_buildings)
    empty = [c for c in state.board.cells_of(area) if c not in state.buildings]
    for building in buildings:
        for cell in empty:
            if _allowed(state, cell, building):
                yield building, cell
    if remove:
        for cell in state.board.areas:
            if state.buildings.get(cell) == GREY:
                yield "remove_neutral", cell


def _allowed(state: SharkState, cell: Cell, building: str) -> bool:
    try:
        chains.examine(state.buildings, state.board, cell, building)
    except IllegalAction:
        return False
    return True


def roll(state: SharkState, face: str, area: str) -> SharkState:
    """The dice are rolled: wait for the placement, or skip it when nothing is legal."""
    state = replace(state, roll=(face, area), step=PLACE, skipped=None)
    if next(_placements(state), None) is not None:
        return state
    named = f"{face} building" if face in COMPANIES else None
    if dice.allowed(face, state.variants, state.supply_buildings) == ([], False):
        why = f"no {named or 'building'} is left in the supply"
    else:
        what = f"a {named}" if named else "any building"
        why = f"no legal cell for {what} in {state.board.describe(area)}"
    return replace(state, step=TRADE_AFTER, skipped=f"{why}: the placement is skipped")


def place(state: SharkState, cell: Cell, building: str) -> SharkState:
    """Place a building by the rolled dice, pay bonus, dividends and losses."""
    assert state.roll is not None
    face, area = state.roll
    buildings, _ = dice.allowed(face, state.variants, state.supply_buildings)
    if building not in buildings:
        raise BrokenRule(_not_allowed(state, face, building, buildings))
    if state.board.areas[cell] != area:
        where = state.board.describe(state.board.areas[cell])
        raise BrokenRule(f"{cell} is in {where} and the area die shows "
                            f"{area}: place in {state.board.describe(area)}")
    if cell in state.buildings:
        raise BrokenRule(f"{cell} already holds a {state.buildings[cell]} building")
    plan = chains.examine(state.buildings, state.board, cell, building)
    pioneer = ("pioneer" in state.variants and not state.pioneered
               and chains.pioneers(state.buildings, state.board, cell, building))
    board, lost, raised = chains.place(state.buildings, plan)
    old = state.prices
    supply = {**state.supply_buildings, building: state.supply_buildings[building] - 1}
    removed = {c: state.removed.get(c, 0) + lost.get(c, 0) for c in state.removed}
    state = replace(state, buildings=board, supply_buildings=supply, removed=removed,
                    roll=None,
                    pioneered=state.pioneered or pioneer, pioneer_again=pioneer)
    bonus = _bonus(state, plan, old, raised, pioneer)
    if bonus:
        state = market.pay(state, [bonus])
    return after_settlement(market.settle(state, old))


def _bonus(state: SharkState, plan: chains.Plan, old: Mapping[str, int],
           raised: int, pioneer: bool) -> Payment | None:
    player, b = state.player, plan.building
    if b == GREY:
        return None
    if b == BLACK:
        top = max(old.values())
        return Payment(player, "bonus", top) if top else None
    if raised > old[b]:
        return Payment(player, "bonus", raised)
    if plan.lone or pioneer:
        return Payment(player, "bonus", 1000)
    return None


def _not_allowed(state: SharkState, face: str, building: str, allowed: list[str]) -> str:
    if not allowed:
        return f"the company die shows {face} and no such building is left in the supply"
    if face in COMPANIES:
        return f"the company die shows {face}: place a {face} building, not {building}"
    variant = {BLACK: "joker", GREY: "neutral"}.get(building)
    if variant and variant not in state.variants:
        return f"{building} buildings are only used with the {variant} variant"
    if state.supply_buildings.get(building, 0) == 0 and building in state.supply_buildings:
        return f"no {building} building is left in the supply: choose {', '.join(allowed)}"
    return f"the company die shows {face}: choose {', '.join(allowed)}"


def remove_neutral(state: SharkState, cell: Cell) -> SharkState:
    """Take a grey building off the board, out of the game (``neutral``)."""
    assert state.roll is not None
    face = state.roll[0]
    _, may = dice.allowed(face, state.variants, state.supply_buildings)
    if not may:
        raise BrokenRule(f"the company die shows {face}: a grey building may be removed "
                            "only on a " + ("black or grey" if "joker" not in state.variants
                                            else "grey") + " face with the neutral variant")
    if state.buildings.get(cell) != GREY:
        raise BrokenRule(f"there is no grey building at {cell}")
    board = state.buildings.without([cell])
    removed = {**state.removed, GREY: state.removed[GREY] + 1}
    state = replace(state, buildings=board, removed=removed, roll=None, pioneer_again=False)
    return after_settlement(state)


def after_settlement(state: SharkState) -> SharkState:
    """Once losses are settled: the game may be over, the pioneer rolls again, or the
    turn goes on to trading."""
    if state.debts:
        return replace(state, step=FORCED_SALE)
    active = state.active()
    if len(active) == 1:
        return replace(state, step=OVER, ended=Ending(
            Termination.LAST_PLAYER,
            f"{active[0]} is the only player left: everyone else is bankrupt"))
    if state.pioneer_again:
        return replace(state, step=PIONEER_ROLL, pioneer_again=False)
    return replace(state, step=TRADE_AFTER)


def end_turn(state: SharkState) -> SharkState:
    """The turn is over: end the game if a condition was met, else the next player."""
    if state.ending:
        return replace(state, step=OVER, ended=state.ending)
    seats = len(state.players)
    nxt = next(i % seats for i in range(state.seat + 1, state.seat + seats + 1)
               if state.players[i % seats] not in state.bankrupt)
    return replace(state, step=TRADE_BEFORE, seat=nxt, bought=0, roll=None,
                   pioneered=False, skipped=None)


def note_end(state: SharkState) -> SharkState:
    """Remember an end condition met during this turn (checked after every action)."""
    if state.ending or state.step == OVER:
        return state
    for company in COMPANIES:
        if state.prices[company] >= TOP_PRICE:
            why = Ending(Termination.TOP_PRICE, f"{company} reached {money(TOP_PRICE)}")
        elif state.supply_buildings[company] == 0:
            why = Ending(Termination.SUPPLY, f"no {company} building is left in the supply")
        elif state.supply_shares[company] == 0:
            why = Ending(Termination.SUPPLY, f"every {company} share has been bought")
        else:
            continue
        return replace(state, ending=why)
    return state
