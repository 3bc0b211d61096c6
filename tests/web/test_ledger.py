"""The money ledger (``GET /api/games/<id>/ledger``) and the log of seeded Shark games
played through the API: every payment with the banker's reason in words, none of the
engine's notes ("blue $1,000 -> $2,000 x 4"), and the amounts add up to each player's
cash."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.support.driver import choose
from tests.support.words import CODE, ENGINE

PLAYERS = ["Ann", "Ben", "Cid", "Dan"]


@pytest.mark.parametrize(("seed", "options"), [
    (3, {"starting_cash": 4000}),
    (8, {"variants": ["joker", "neutral", "pioneer"]}),
])
def test_the_ledger_and_the_log_speak_the_banker_s_words(writer: Any, seed: int,
                                                         options: dict) -> None:
    res = writer("post", "/api/games", json={"game": "shark", "players": PLAYERS,
                                             "options": options})
    sid = res.get_json()["id"]
    view = res.get_json()
    rnd = random.Random(seed)
    for _ in range(600):
        if view["over"]:
            break
        action = choose(view["legal"], rnd)
        res = writer("post", f"/api/games/{sid}/actions", json={"action": action})
        if res.status_code == 200:
            view = res.get_json()
    view = writer("get", f"/api/games/{sid}").get_json()
    rows = writer("get", f"/api/games/{sid}/ledger").get_json()
    assert {"bonus", "dividend", "purchase", "sale"} <= {r["kind"] for r in rows}
    for row in rows:
        assert set(row) == {"seq", "player", "kind", "amount", "why"}, row
        assert not ENGINE.search(row["why"]) and not CODE.search(row["why"]), row
    for entry in view["log"]:
        assert not ENGINE.search(entry["text"]), entry["text"]
        assert entry.get("paid", []) == [{k: v for k, v in r.items() if k != "seq"}
                                         for r in rows if r["seq"] == entry["seq"]]
    start = options.get("starting_cash", 0)
    for player in PLAYERS:
        moved = sum(r["amount"] for r in rows if r["player"] == player)
        assert start + moved == view["state"]["cash"][player], player
