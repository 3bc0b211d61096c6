"""The components and the state of a game of Shark.

The state is a frozen dataclass; every rule returns a new one. ``step`` is the small
state machine of a turn (see ``turn.py``), readable by the dashboard as ``pending``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion.engine import Ending
from companion.games.shark.board import Board

if TYPE_CHECKING:
    from companion.games.shark.chains import Buildings

COMPANIES = ("red", "blue", "green", "yellow")
BLACK, GREY = "black", "grey"
BUILDINGS_PER_COMPANY = 18
SPECIAL_BUILDINGS = 5            # black (joker) and grey (neutral), five of each
SHARES_PER_COMPANY = 50          # 15 certificates of 1 and 7 of 5
BUY_LIMIT = 5                    # shares bought per turn, both trade windows together
TOP_PRICE = 15000
VARIANTS = ("joker", "neutral", "pioneer")

# Steps of a turn: what the engine waits for.
CHOOSE_STOCK = "choose_stock"    # setup: each player takes one free share, seat order
TRADE_BEFORE = "trade_before"    # buy/sell, then roll
PLACE = "place"                  # place a building (or remove a grey one)
PIONEER_ROLL = "pioneer_roll"    # a pioneer rolls again (no trading in between)
FORCED_SALE = "forced_sale"      # a debtor sells shares at the forced price
TRADE_AFTER = "trade_after"      # buy/sell, then end_turn
OVER = "over"


@dataclass(frozen=True)
class Payment:
    """Money between the bank and a player: ``amount`` > 0 paid to the player.

    ``kind`` is one of ``bonus``, ``dividend``, ``loss``, ``sale``, ``purchase``;
    ``note`` the banker's reason in the rulebook's words (``words.payments``), given
    once the action that made the payment is done.
    """

    player: str
    kind: str
    amount: int
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "kind": self.kind, "amount": self.amount,
                "note": self.note}


@dataclass(frozen=True)
class SharkState:
    players: tuple[str, ...]
    board: Board
    variants: frozenset[str]
    buildings: Buildings                       # cell -> company, "black" or "grey"
    cash: Mapping[str, int]
    shares: Mapping[str, Mapping[str, int]]    # player -> company -> shares
    supply_buildings: Mapping[str, int]
    supply_shares: Mapping[str, int]
    removed: Mapping[str, int]                 # buildings out of the game
    step: str = CHOOSE_STOCK
    seat: int = 0                              # seat of the player whose turn it is
    bought: int = 0                            # shares bought this turn
    roll: tuple[str, str] | None = None        # (company face, area face) to place by
    pioneered: bool = False                    # the pioneer's extra roll is used
    pioneer_again: bool = False                # roll again once the losses are settled
    skipped: str | None = None                 # why this turn's placement was skipped
    debts: tuple[tuple[str, int, str], ...] = ()   # (player, owed, what for), in order
    bankrupt: tuple[str, ...] = ()
    ending: Ending | None = None               # an end condition met this turn
    ended: Ending | None = None
    payments: tuple[Payment, ...] = ()         # what the last action paid
    totals: Mapping[str, int] = field(default_factory=dict)  # kind -> dollars, whole game

    @property
    def prices(self) -> Mapping[str, int]:
        """Every company's price: always the chains' formula over the board, worked out
        once per :class:`Buildings` (no state that moves no building recomputes it)."""
        return self.buildings.prices

    @property
    def player(self) -> str:
        """The player whose turn it is."""
        return self.players[self.seat]

    @property
    def debtor(self) -> str | None:
        return self.debts[0][0] if self.step == FORCED_SALE else None

    def active(self) -> list[str]:
        """Players still in the game, seat order."""
        return [p for p in self.players if p not in self.bankrupt]
