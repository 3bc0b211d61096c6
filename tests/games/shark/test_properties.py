"""Invariants of Shark over random legal games on both boards, every variant set
(hypothesis): money, shares and buildings are never created or lost, prices always
follow the formula, no two companies ever touch."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import IllegalAction
from companion.games.shark import GAME, SharkState
from companion.grid import Cell
from tests.games.shark.driver import VARIANT_SETS, play

COMPANIES = ("red", "blue", "green", "yellow")
KINDS = ("bonus", "dividend", "loss", "sale", "purchase")


def neighbours(state: SharkState, cell: str) -> list[str]:
    return [str(n) for n in Cell.parse(cell).neighbours() if str(n) in state.board.areas]


def owner(state: SharkState, cell: str) -> str | None:
    """The company a building counts for: its own, or for black its neighbours'."""
    b = state.buildings[cell]
    if b in COMPANIES:
        return b
    if b == "black":
        touching = {state.buildings.get(n) for n in neighbours(state, cell)} & set(COMPANIES)
        assert len(touching) <= 1, f"black at {cell} touches {touching}"
        return touching.pop() if touching else None
    return None


def formula(state: SharkState) -> dict[str, int]:
    """The rulebook's price, recomputed here from the board alone."""
    out = {}
    for company in COMPANIES:
        cells = {c for c in state.buildings if owner(state, c) == company}
        chained, seen = 0, set()
        for start in cells:
            if start in seen:
                continue
            group, todo = {start}, [start]
            while todo:
                for n in neighbours(state, todo.pop()):
                    if n in cells and n not in group:
                        group.add(n)
                        todo.append(n)
            seen |= group
            chained += len(group) if len(group) > 1 else 0
        own = any(b == company for b in state.buildings.values())
        out[company] = min(15000, 1000 * chained) if chained else (1000 if own else 0)
    return out


def check(before: SharkState, action: dict[str, Any], after: SharkState,
          start_cash: int) -> None:
    # money: every change of cash is a payment of this action, by kind
    for p in after.players:
        change = after.cash[p] - before.cash[p]
        assert change == sum(x.amount for x in after.payments if x.player == p)
        assert after.cash[p] >= 0
    total = sum(after.cash.values()) - start_cash * len(after.players)
    t = {k: after.totals.get(k, 0) for k in KINDS}
    assert t["loss"] <= 0 and t["purchase"] <= 0
    assert total == t["bonus"] + t["dividend"] + t["sale"] + t["loss"] + t["purchase"]
    kind = action["type"]
    if kind in ("buy", "sell"):
        sign = -1 if kind == "buy" else 1
        price = before.prices[action["company"]]
        assert [(x.kind, x.amount) for x in after.payments] == [
            ("purchase" if kind == "buy" else "sale", sign * price * action["count"])]
    if kind == "place":
        change = {c: after.prices[c] - before.prices[c] for c in COMPANIES}
        for p in before.players:
            if p in before.bankrupt:
                continue
            dividends = sum(x.amount for x in after.payments
                            if x.player == p and x.kind == "dividend")
            assert dividends == sum(max(0, change[c]) * before.shares[p][c] for c in COMPANIES)
            settled = after.step != "forced_sale" and p not in after.bankrupt
            if settled:
                losses = -sum(x.amount for x in after.payments
                              if x.player == p and x.kind == "loss")
                due = sum(max(0, -change[c]) * before.shares[p][c] for c in COMPANIES)
                assert losses == (0 if p == before.player else due)
    # shares: held + supply = 50 per company
    for c in COMPANIES:
        assert sum(after.shares[p][c] for p in after.players) + after.supply_shares[c] == 50
    # buildings: board + supply + removed = 18 (5 for black and grey)
    on_board = {b: list(after.buildings.values()).count(b) for b in after.supply_buildings}
    for b, n in after.supply_buildings.items():
        expected = 18 if b in COMPANIES else 5
        assert on_board[b] + n + after.removed.get(b, 0) == expected, b
    # prices follow the formula, and no two companies touch
    assert dict(after.prices) == formula(after)
    for cell in after.buildings:
        mine = owner(after, cell)
        for n in neighbours(after, cell):
            if n in after.buildings and mine is not None:
                theirs = owner(after, n)
                assert theirs in (None, mine), f"{cell} {mine} next to {n} {theirs}"
    for p in after.bankrupt:
        assert after.cash[p] == 0 and not any(after.shares[p].values())


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), board=st.sampled_from(["classic", "kbg2022"]),
       variants=st.sampled_from(VARIANT_SETS), players=st.integers(2, 6),
       cash=st.sampled_from([0, 3000, 20000]), greed=st.sampled_from([0.2, 0.6]))
def test_random_games_keep_every_invariant(seed: int, board: str, variants: list[str],
                                           players: int, cash: int, greed: float) -> None:
    names = ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay"][:players]
    options = {"board": board, "variants": variants, "starting_cash": cash}
    for before, action, after in play(names, options, seed, limit=200, greed=greed):
        check(before, action, after, cash)


def test_every_variant_set_is_covered() -> None:
    assert len(VARIANT_SETS) == 8 and ["joker", "neutral", "pioneer"] in VARIANT_SETS


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), variants=st.sampled_from(VARIANT_SETS))
def test_a_game_replays_to_the_same_state(seed: int, variants: list[str]) -> None:
    options = {"board": "kbg2022", "variants": variants}
    moves = list(play(["Ann", "Ben", "Cid"], options, seed, limit=120))
    state = GAME.new(["Ann", "Ben", "Cid"], options)
    for _, action, _ in moves:
        state = GAME.apply(state, action)
    assert GAME.summary(state) == GAME.summary(moves[-1][2])
    assert all("company" in a and "area" in a for _, a, _ in moves if a["type"] == "roll")


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32), variants=st.sampled_from(VARIANT_SETS),
       board=st.sampled_from(["classic", "kbg2022"]))
def test_the_placement_choices_are_exactly_the_legal_placements(
        seed: int, variants: list[str], board: str) -> None:
    options = {"board": board, "variants": variants}
    for _, _, state in play(["Ann", "Ben", "Cid"], options, seed, limit=120):
        if state.step != "place":
            continue
        choices = GAME.view(state)["pending"]["choices"]
        legal = {x.type: x for x in GAME.legal(state)}
        assert set(legal["place"].choices["company"]) == set(choices) - {"remove_neutral"}
        assert state.roll is not None
        for building in ("red", "blue", "green", "yellow", "black", "grey"):
            for cell in state.board.cells_of(state.roll[1]):
                try:
                    GAME.apply(state, {"type": "place", "cell": cell, "company": building})
                    ok = True
                except IllegalAction:
                    ok = False
                assert ok == (cell in choices.get(building, [])), (building, cell)
