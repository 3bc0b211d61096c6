"""The banker speaks: every payment an action makes is in its log line (who, how much,
to whom), forced sales read "Ben sold 1 red at $1,000 to cover a $4,000 loss", and no
code word reaches a player."""

from __future__ import annotations

import random
import re

from companion import games
from companion.engine import IllegalAction
from companion.words import money
from tests.games.shark.test_market import forced, forced_sale_position

FORCED = re.compile(r"^(\w+) sold (\d+) (red|blue|green|yellow) at \$[\d,]+ to cover a "
                    r"\$[\d,]+ loss")
CODE = re.compile(r"\b(end_turn|forced_sell|choose_stock|remove_neutral|None)\b|_")


def lines(seed: int, actions: int = 400) -> list[tuple[dict, object, object, str]]:
    """(action, before, after, text) of a seeded game chosen from the legal moves."""
    game = games.get("shark")
    rnd = random.Random(seed)
    state = game.new(["Ann", "Ben", "Cid"], {})
    out: list[tuple[dict, object, object, str]] = []
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
            for pay in after.payments:                      # type: ignore[attr-defined]
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
