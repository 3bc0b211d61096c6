"""The banker speaks: every payment an action makes is in its log line (who, how much,
to whom), forced sales read "Ben sold 1 red at $1,000 to cover a $4,000 loss", and no
code word reaches a player."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from companion import games
from companion.engine import IllegalAction
from companion.games.shark import GAME, words
from companion.grid import Cell
from companion.words import money
from tests.games.shark.position import (
    build,
    drawn,
    forced,
    forced_sale_position,
    holding,
    place,
    roll,
    started,
)
from tests.support.words import CODE, ENGINE

FORCED = re.compile(r"^(\w+) sold (\d+) (red|blue|green|yellow) at \$[\d,]+ to cover a "
                    r"\$[\d,]+ loss")
TIMES = re.compile(r"(\d+) shares? \u00d7 \$([\d,]+)")
EACH = re.compile(r"^(?:bought|sold|forced sale of) (\d+) \w+ shares? at \$([\d,]+) each")


def lines(seed: int, actions: int = 400, players: tuple[str, ...] = ("Ann", "Ben", "Cid"),
          options: dict | None = None) -> list[tuple[dict, Any, Any, str]]:
    """(action, before, after, text) of a seeded game chosen from the legal moves."""
    game = games.get("shark")
    rnd = random.Random(seed)
    state = game.new(list(players), options or {})
    out: list[tuple[dict, Any, Any, str]] = []
    while len(out) < actions and not game.is_over(state):
        option = rnd.choice(game.legal(state))
        action = {"type": option.type}
        for field, values in option.choices.items():
            action[field] = rnd.choice(list(values))
        action = game.resolve(state, action, rnd)
        try:
            after = game.apply(state, action)
        except IllegalAction:
            continue
        out.append((action, state, after, game.describe(state, action, after)))
        state = after
    return out


def test_every_payment_is_in_the_log_line() -> None:
    for seed in range(6):
        for action, _, after, text in lines(seed):
            assert not CODE.search(text), text
            for pay in after.payments:
                assert pay.player in text and money(abs(pay.amount)) in text, (text, pay)
            if action["type"] == "forced_sell":
                match = FORCED.match(text)
                assert match and match[1] == action["player"], text
                assert int(match[2]) == action["count"] and match[3] == action["company"]


def test_a_forced_sale_in_the_banker_s_words() -> None:
    game = games.get("shark")
    state = forced_sale_position()        # Ben owes $6,000 and has $3,000
    first = game.apply(state, forced("Ben", "red", 1))
    assert game.describe(state, forced("Ben", "red", 1), first) == (
        "Ben sold 1 red at $2,000 to cover a $6,000 loss.")
    second = game.apply(first, forced("Ben", "red", 1))
    assert game.describe(first, forced("Ben", "red", 1), second) == (
        "Ben sold 1 red at $2,000 to cover a $6,000 loss: the loss is paid. Cid pays the "
        "bank $3,000 for the loss.")


def reasons(before: Any, action: dict, after: Any) -> list[str]:
    """The banker's reasons for the payments of ``action``, checked against the bank:
    one a payment, same player, kind and amount, no engine note, and the sums they show
    add up to the amount paid."""
    said = words.payments(before, action, after)
    assert [(p["player"], p["kind"], p["amount"]) for p in said] == [
        (p.player, p.kind, p.amount) for p in after.payments]
    for p in said:
        why = p["why"]
        assert not ENGINE.search(why) and not CODE.search(why), why
        each = EACH.match(why)
        if each:
            assert int(each[1]) * int(each[2].replace(",", "")) == abs(p["amount"]), p
        elif p["kind"] in ("dividend", "loss") and "bankrupt" not in why and "after" not in why:
            sums = [int(n) * int(d.replace(",", "")) for n, d in TIMES.findall(why)]
            assert sums and sum(sums) == abs(p["amount"]), p
    return [p["why"] for p in said]


@pytest.mark.parametrize(("seed", "players", "options"), [
    (0, ("Ann", "Ben", "Cid"), {}),
    (1, ("Ann", "Ben"), {"starting_cash": 4000}),
    (2, ("Ann", "Ben", "Cid", "Dan"), {"variants": ["joker", "neutral", "pioneer"]}),
    (3, ("Ann", "Ben", "Cid"), {"board": "kbg2022", "variants": ["joker", "pioneer"]}),
    (4, ("Ann", "Ben", "Cid", "Dan", "Eve"), {"starting_cash": 2000,
                                              "variants": ["neutral"]}),
])
def test_every_payment_of_random_games_has_the_banker_s_reason(
        seed: int, players: tuple[str, ...], options: dict) -> None:
    kinds = set()
    for action, before, after, text in lines(seed, 1500, players, options):
        assert not ENGINE.search(text), text
        reasons(before, action, after)
        kinds |= {p.kind for p in after.payments}
    assert {"bonus", "dividend", "purchase", "sale"} <= kinds


def test_the_reasons_of_a_chain_a_black_building_and_a_pioneer() -> None:
    state = holding(drawn(started(stocks=["red", "blue", "red"]), "rr.bb", at="A6"),
                    "Ben", blue=4)
    after = build(state, "C6", "red")      # red 2 -> 3 takes nothing: blue stays
    assert reasons(state, {"type": "place", "cell": "C6", "company": "red"}, after)[:2] == [
        "bonus for a chain of 3 at C6: red's new price (up from $2,000)",
        "dividend, as red's price rose from $2,000 to $3,000: 1 share \u00d7 $1,000"]
    black = drawn(started(variants=["joker"]), "rrr", at="A1")
    area = black.board.areas[Cell.parse("J12")]
    after = GAME.apply(GAME.apply(black, {"type": "roll", "company": "black", "area": area}),
                       {"type": "place", "cell": "J12", "company": "black"})
    placed = GAME.apply(black, {"type": "roll", "company": "black", "area": area})
    assert reasons(placed, {"type": "place", "cell": "J12", "company": "black"}, after) == [
        "bonus for the black building at J12: red's $3,000, the highest price on the board"]
    for variants, says in (([], "bonus for a lone building at J12"), (["pioneer"], (
            f"pioneer bonus: J12 is the first red building in {black.board.describe(area)}"))):
        game = drawn(started(variants=variants), "rr", at="A1")
        rolled = GAME.apply(game, {"type": "roll", "company": "red", "area": area})
        after = GAME.apply(rolled, {"type": "place", "cell": "J12", "company": "red"})
        assert reasons(rolled, {"type": "place", "cell": "J12", "company": "red"},
                       after) == [says]


def test_the_reasons_of_forced_sales_losses_and_a_bankruptcy() -> None:
    state = forced_sale_position()        # Ben owes $6,000 and has $3,000
    first = GAME.apply(state, forced("Ben", "red", 1))
    assert reasons(state, forced("Ben", "red", 1), first) == [
        "forced sale of 1 red share at $2,000 each: half of $5,000, rounded down to a "
        "whole $1,000"]
    second = GAME.apply(first, forced("Ben", "red", 1))
    assert reasons(first, forced("Ben", "red", 1), second)[1:] == [
        "the $6,000 loss of the building placed this turn, paid after the sale",
        "the $3,000 loss of the building placed this turn, paid after the sale"]
    # Ben cannot cover $9,000 with $2,000 and red at the forced $2,000: bankrupt at once
    broke = holding(holding(drawn(started(stocks=["red", "green", "red"]), "rrrr.ggg",
                                  at="A6"), "Ben", cash=1000, green=3, red=1),
                    "Cid", cash=9000, green=1)
    rolled = GAME.apply(broke, {"type": "roll", "company": "red",
                                "area": broke.board.areas[Cell.parse("E6")]})
    after = GAME.apply(rolled, {"type": "place", "cell": "E6", "company": "red"})
    said = reasons(rolled, {"type": "place", "cell": "E6", "company": "red"}, after)
    assert said[-2:] == [
        "bankrupt: the $9,000 loss (green's price fell from $3,000 to $0: 3 shares "
        "\u00d7 $3,000) is more than Ben's cash and shares at the forced price, so all the "
        "cash goes to the bank and every share back to the supply",
        "loss, as green's price fell from $3,000 to $0: 1 share \u00d7 $3,000"]


def test_the_money_in_the_view_is_in_the_banker_s_words() -> None:
    """``state.payments`` and a forced sale's ``pending.for``, as the API and ``companion
    replay`` show them: the banker's reasons (the ledger's), never the engine's notes."""
    debts = 0
    for seed in (0, 1, 26):          # 26 comes to a forced sale
        for action, before, after, _ in lines(seed, 1500):
            view = GAME.view(after)
            said = words.payments(before, action, after)
            assert [p["note"] for p in view["payments"]] == [p["why"] for p in said]
            for p in view["payments"]:
                assert not ENGINE.search(p["note"]) and not CODE.search(p["note"]), p
            pending = view["pending"] or {}
            if "for" in pending:
                debts += 1
                assert not ENGINE.search(pending["for"]), pending["for"]
                sums = [int(n) * int(d.replace(",", "")) for n, d in
                        TIMES.findall(pending["for"])]
                assert sum(sums) == pending["owed"], pending
    assert debts
    state = forced_sale_position()
    assert GAME.view(state)["pending"]["for"] == (
        "green's price fell from $3,000 to $0: 2 shares \u00d7 $3,000")


def test_a_takeover_of_two_companies_is_said_once() -> None:
    game = games.get("shark")
    state = drawn(started(stocks=["red", "blue", "yellow"]), "rrr.b", "...y.", at="A5")
    rolled = game.apply(state, roll("red", state.board.areas[Cell.parse("D5")]))
    after = game.apply(rolled, place("D5", "red"))
    text = game.describe(rolled, place("D5", "red"), after)
    assert text.count("the takeover removes") == 1, text
    assert "the takeover removes 1 blue building and 1 yellow building" in text, text
