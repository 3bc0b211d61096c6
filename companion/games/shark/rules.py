"""Shark: the companion as the banker.

Actions are checked here, at the text boundary (names, numbers, whose turn, which step):
a cell name (``"C4"``) becomes the board's :class:`~companion.grid.Cell` here, and back to
its name only in ``view`` and ``legal``; inside, every module works with cells. The
actions are carried out by the rule modules: ``board`` (geometry), ``chains``
(placement, chains, prices, takeovers), ``market`` (trading, dividends, losses, forced
sales, bankruptcy), ``turn`` (the turn's state machine and the game end), ``dice``
(what a roll allows).

Options: ``board`` (``"classic"``, ``"kbg2022"`` or a board object), ``variants`` (any
of ``"joker"``, ``"neutral"``, ``"pioneer"``), ``starting_cash`` (dollars, a multiple
of $1000, default 0). A ``roll`` without ``company`` and ``area`` is rolled by the
companion (:meth:`Shark.resolve`) and logged with its faces. ``place`` may leave out
``company`` when the company die shows a company; on a black or grey face it must name
the building chosen.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
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
    best,
)
from companion.games.shark import board as boards
from companion.games.shark import chains, dice, market, turn, words
from companion.games.shark.state import (
    BLACK,
    BUILDINGS_PER_COMPANY,
    BUY_LIMIT,
    CHOOSE_STOCK,
    COMPANIES,
    FORCED_SALE,
    GREY,
    OVER,
    PIONEER_ROLL,
    PLACE,
    SHARES_PER_COMPANY,
    SPECIAL_BUILDINGS,
    TRADE_AFTER,
    TRADE_BEFORE,
    VARIANTS,
    SharkState,
)
from companion.grid import Cell

STEP_ACTIONS = {
    CHOOSE_STOCK: ("choose_stock",),
    TRADE_BEFORE: ("buy", "sell", "roll"),
    PLACE: ("place", "remove_neutral"),
    PIONEER_ROLL: ("roll",),
    FORCED_SALE: ("forced_sell",),
    TRADE_AFTER: ("buy", "sell", "end_turn"),
    OVER: (),
}


class Shark(Game[SharkState]):
    name = "shark"
    title = "Shark"
    min_players, max_players = 2, 6
    actions: ClassVar[Mapping[str, Rule[SharkState]]]

    def new(self, players: Sequence[str], options: Mapping[str, Any]) -> SharkState:
        if not isinstance(options, Mapping):
            raise BadSetup("options must be a JSON object")
        unknown = set(options) - {"board", "variants", "starting_cash"}
        if unknown:
            raise BadSetup(f"unknown option {sorted(unknown)[0]!r}: Shark takes board, "
                           "variants and starting_cash")
        board = boards.load(options.get("board", "classic"))
        variants = _variants(options.get("variants", []))
        cash = options.get("starting_cash", 0)
        if not isinstance(cash, int) or isinstance(cash, bool) or cash < 0 or cash % 1000:
            raise BadSetup(f"\"starting_cash\" is dollars in $1000 notes (0, 1000, 2000, "
                           f"...), not {cash!r}")
        names = tuple(self.check_players(players))
        special = {b: SPECIAL_BUILDINGS for b, v in ((BLACK, "joker"), (GREY, "neutral"))
                   if v in variants}
        return SharkState(
            players=names, board=board, variants=variants, buildings=chains.Buildings(board),
            cash=dict.fromkeys(names, cash),
            shares={p: dict.fromkeys(COMPANIES, 0) for p in names},
            supply_buildings={**dict.fromkeys(COMPANIES, BUILDINGS_PER_COMPANY), **special},
            supply_shares=dict.fromkeys(COMPANIES, SHARES_PER_COMPANY),
            removed={**dict.fromkeys(COMPANIES, 0),
                     **({GREY: 0} if "neutral" in variants else {})},
        )

    def resolve(self, state: SharkState, action: Action, rng: random.Random) -> Action:
        """Digital dice: a roll without faces is rolled here and logged with them."""
        if (action.get("type") == "roll" and "company" not in action
                and "area" not in action and state.step in (TRADE_BEFORE, PIONEER_ROLL)):
            face, area = dice.roll(state.board, rng)
            return {**action, "company": face, "area": area}
        return action

    # Queries -------------------------------------------------------------------

    def legal(self, state: SharkState) -> list[Legal]:
        who = self.current(state)
        return [Legal(kind, choices, who) for kind, entries in _possible(state).items()
                for choices in entries]

    def view(self, state: SharkState) -> dict[str, Any]:
        shown = [*COMPANIES, *(b for b in (BLACK, GREY) if b in state.supply_buildings)]
        return {
            "board_name": state.board.name,
            "layout": list(state.board.rows),
            "area_die": list(state.board.area_die),
            "variants": sorted(state.variants),
            "prices": dict(state.prices),
            "cash": dict(state.cash),
            "shares": {p: dict(s) for p, s in state.shares.items()},
            "board": {str(c): state.buildings[c] for c in state.board.areas
                      if c in state.buildings},
            "supply": {"buildings": {b: state.supply_buildings[b] for b in shown},
                       "shares": dict(state.supply_shares)},
            "removed": dict(state.removed),
            "bankrupt": list(state.bankrupt),
            "pending": _pending(state),
            "turn": {"player": state.player, "bought": state.bought,
                     "pioneered": state.pioneered, "skipped": state.skipped},
            "payments": [p.to_json() for p in state.payments],
            "totals": dict(state.totals),
            "ending": state.ending.reason if state.ending else None,
            "ended": state.ended.reason if state.ended else None,
        }

    def scores(self, state: SharkState) -> dict[str, int]:
        return {p: state.cash[p] + sum(n * state.prices[c] for c, n in state.shares[p].items())
                for p in state.players}

    def describe(self, before: SharkState, action: Action, after: SharkState) -> str:
        return words.describe(before, action, after)

    def ledger(self, before: SharkState, action: Action, after: SharkState
               ) -> list[dict[str, Any]]:
        return [{"player": p.player, "kind": p.kind, "amount": p.amount, "why": p.note}
                for p in after.payments]

    def series(self, state: SharkState) -> dict[str, dict[str, int]]:
        """The stock index: every company's price."""
        return {"prices": dict(state.prices)}

    def current(self, state: SharkState) -> str | None:
        if state.step == OVER:
            return None
        return state.debtor or state.player

    def ending(self, state: SharkState) -> Ending | None:
        return state.ended

    def winners(self, state: SharkState) -> tuple[str, ...]:
        scores = self.scores(state)
        return best({p: scores[p] for p in state.active()})

    def players(self, state: SharkState) -> Sequence[str]:
        return state.players


# Actions ------------------------------------------------------------------------


def _choose_stock(state: SharkState, action: Action) -> SharkState:
    state = market.choose_stock(state, _company(action))
    if state.seat + 1 < len(state.players):
        return replace(state, seat=state.seat + 1)
    return turn.start(state)


def _roll(state: SharkState, action: Action) -> SharkState:
    if "company" not in action and "area" not in action:
        raise Malformed("the roll has no dice: say what the company die and the area die "
                        "show (company, area), or let the companion roll")
    face = action.get("company")
    if face not in dice.COMPANY_DIE:
        raise Malformed(f"the company die shows one of {', '.join(dice.COMPANY_DIE)}, "
                        f"not {face!r}")
    area = action.get("area")
    area = str(area) if isinstance(area, str | int) and not isinstance(area, bool) else area
    if area not in state.board.area_die:
        faces = ", ".join(dict.fromkeys(state.board.area_die))
        raise Malformed(f"this board's area die shows one of {faces}, not {area!r}")
    return turn.roll(state, face, area)


def _place(state: SharkState, action: Action) -> SharkState:
    assert state.roll is not None
    face = state.roll[0]
    if "company" not in action and face not in COMPANIES:
        buildings, _ = dice.allowed(face, state.variants, state.supply_buildings)
        raise BrokenRule(f"the company die shows {face}: say which building to place "
                         f"(company): {', '.join(buildings)}")
    building = action.get("company", face)
    if building not in (*COMPANIES, BLACK, GREY):
        raise Malformed(f"a building is one of {', '.join((*COMPANIES, BLACK, GREY))}, "
                        f"not {building!r}")
    return turn.place(state, _cell(state, action.get("cell")), building)


def _remove_neutral(state: SharkState, action: Action) -> SharkState:
    return turn.remove_neutral(state, _cell(state, action.get("cell")))


def _buy(state: SharkState, action: Action) -> SharkState:
    return market.buy(state, _company(action), _count(action))


def _sell(state: SharkState, action: Action) -> SharkState:
    return market.sell(state, _company(action), _count(action))


def _forced_sell(state: SharkState, action: Action) -> SharkState:
    player = action.get("player")
    if player not in state.players:
        raise Malformed(f"forced_sell names the player who sells: one of "
                        f"{', '.join(state.players)}, not {player!r}")
    state = market.forced_sell(state, player, _company(action), _count(action))
    return turn.after_settlement(state)


def _end_turn(state: SharkState, action: Action) -> SharkState:
    return turn.end_turn(state)


def _in_step(kind: str, handler: Callable[[SharkState, Action], SharkState]
             ) -> Callable[[SharkState, Action], SharkState]:
    """``handler`` when the turn's step allows ``kind``; the last action's payments are
    cleared first, an end condition met is noted after, and each payment is given the
    banker's reason (what ``state.payments`` shows, and the ledger)."""
    def run(state: SharkState, action: Action) -> SharkState:
        if kind not in STEP_ACTIONS[state.step]:
            raise BrokenRule(f"not now: {_waiting(state)}")
        after = turn.note_end(handler(replace(state, payments=()), action))
        said = words.payments(state, action, after)
        return replace(after, payments=tuple(replace(p, note=s["why"]) for p, s in
                                             zip(after.payments, said, strict=True)))
    return run


Shark.actions = {kind: Rule(fields, _in_step(kind, handler), says, labels)
                 for kind, fields, handler, says, labels in (
    ("choose_stock", {"company"}, _choose_stock, "Take a free share", {}),
    ("roll", {"company", "area"}, _roll, "Roll the dice",
     {"company": "company die", "area": "area die"}),
    ("place", {"cell", "company"}, _place, "Place a building", {"company": "building"}),
    ("remove_neutral", {"cell"}, _remove_neutral, "Remove a grey building", {}),
    ("buy", {"company", "count"}, _buy, "Buy shares", {"count": "shares"}),
    ("sell", {"company", "count"}, _sell, "Sell shares", {"count": "shares"}),
    ("forced_sell", {"player", "company", "count"}, _forced_sell,
     "Forced sale: sell shares to cover a loss", {"player": "seller", "count": "shares"}),
    ("end_turn", set(), _end_turn, "End the turn", {}),
)}


# What may be chosen now ----------------------------------------------------------


def _possible(state: SharkState) -> dict[str, list[dict[str, list[Any]]]]:
    """The actions possible now, each with its entries of choices (see :func:`_choices`)."""
    out = {}
    for kind in STEP_ACTIONS[state.step]:
        entries = _choices(state, kind)
        if entries:
            out[kind] = entries
    return out


def _choices(state: SharkState, kind: str) -> list[dict[str, list[Any]]]:
    """The entries of one action the step allows; none when it is not possible. Every
    combination of an entry's choices is accepted: a trade has an entry per company with
    the counts it allows, a placement an entry per building with the cells it may go on."""
    me = state.player
    if kind == "choose_stock":
        return [{"company": list(COMPANIES)}]
    if kind == "buy":
        return [{"company": [c], "count": list(range(1, n + 1))}
                for c, n in market.buyable(state).items()]
    if kind == "sell":
        return [{"company": [c], "count": list(range(1, state.shares[me][c] + 1))}
                for c in COMPANIES if state.prices[c] >= 1000 and state.shares[me][c] > 0]
    if kind in ("place", "remove_neutral"):
        options = turn.choices(state)
        greys = options.pop("remove_neutral", [])
        if kind == "remove_neutral":
            return [{"cell": _names(greys)}] if greys else []
        return [{"cell": _names(cells), "company": [building]}
                for building, cells in options.items()]
    if kind == "forced_sell":
        debtor = state.debts[0][0]
        return [{"player": [debtor], "company": [c], "count": list(range(1, n + 1))}
                for c, n in market.forced_sellable(state).items()]
    return [{}]


# Boundary checks ----------------------------------------------------------------


def _variants(value: object) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadSetup("\"variants\" is a list of \"joker\", \"neutral\", \"pioneer\"")
    for v in value:
        if v not in VARIANTS:
            raise BadSetup(f"unknown variant {v!r}: choose from {', '.join(VARIANTS)}")
    if len(set(value)) != len(value):
        raise BadSetup("a variant is named twice in \"variants\"")
    return frozenset(value)


def _company(action: Action) -> str:
    company = action.get("company")
    if company not in COMPANIES:
        raise Malformed(f"{action['type']} needs a company: one of {', '.join(COMPANIES)}, "
                            f"not {company!r}")
    assert isinstance(company, str)
    return company


def _count(action: Action) -> int:
    count = action.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise Malformed(f"{action['type']} needs a count of shares (1 or more), "
                            f"not {count!r}")
    return count


def _cell(state: SharkState, name: object) -> Cell:
    """The cell an action names (``"C4"``, case and spaces forgiven), checked against the
    board: the one place a cell name is read."""
    try:
        cell = Cell.parse(name)
    except ValueError as err:
        raise Malformed(str(err)) from None
    if cell not in state.board.areas:
        width, height = len(state.board.rows[0]), len(state.board.rows)
        if cell.col < width and cell.row < height:
            raise Malformed(f"{cell} is not a cell of the {state.board.name} board: a gap "
                            "(\".\" in its rows)")
        raise Malformed(f"{cell} is not a cell of the {state.board.name} board (columns A "
                        f"to {chr(ord('A') + width - 1)}, rows 1 to {height})")
    return state.board.cell(cell)


def _names(cells: list[Cell]) -> list[str]:
    return [str(c) for c in cells]


def _waiting(state: SharkState) -> str:
    """What the game waits for, in table words."""
    who = state.debtor or state.player
    return {
        CHOOSE_STOCK: f"{who} chooses a starting share",
        TRADE_BEFORE: f"{who} may buy or sell, then rolls the dice",
        PLACE: f"{who} places a building by the dice" + (
            f" ({state.roll[0]}, {state.board.describe(state.roll[1])})" if state.roll
            else ""),
        PIONEER_ROLL: f"{who} pioneered and rolls again",
        FORCED_SALE: f"{who} must sell shares to pay a loss",
        TRADE_AFTER: f"{who} may buy or sell, then ends the turn",
    }[state.step]


def _pending(state: SharkState) -> dict[str, Any] | None:
    if state.step == OVER:
        return None
    who = state.debtor or state.player
    out: dict[str, Any] = {"type": state.step, "player": who,
                           "actions": list(_possible(state)),
                           "says": _waiting(state)}
    if state.step in (TRADE_BEFORE, TRADE_AFTER):
        out["may_buy"] = BUY_LIMIT - state.bought
    if state.step == PLACE and state.roll:
        out["roll"] = {"company": state.roll[0], "area": state.roll[1]}
        out["choices"] = {what: _names(cells) for what, cells in turn.choices(state).items()}
    if state.step == FORCED_SALE:
        _, owed, why = state.debts[0]
        out["owed"] = owed
        out["short"] = owed - state.cash[who]
        out["for"] = why
        out["forced_prices"] = {c: market.forced_price(state.prices[c]) for c in COMPANIES}
    return out


GAME = Shark()
