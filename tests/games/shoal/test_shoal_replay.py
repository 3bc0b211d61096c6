"""Full 2-, 3- and 4-player games replayed through the real ``companion replay``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion import engine
from companion.games.shoal.layout import from_cells
from companion.games.shoal.rules import GAME
from companion.games.shoal.scoring import score
from tests.games.shoal.helpers import RULEBOOK, random_game, top_most

COMPANION = [sys.executable, "-m", "companion.cli"]
Write = Callable[[dict[str, Any]], Path]


def replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMPANION, "replay", str(path), "--json"], capture_output=True,
                          text=True, timeout=60, check=False)


@pytest.mark.parametrize(("players", "goal"), [(2, "G2"), (3, "G3"), (4, "G7")])
def test_full_game_replays(players: int, goal: str, write_record: Write) -> None:
    names = ["Ann", "Ben", "Cid", "Dee"][:players]
    actions = random_game(random.Random(players), names, goal)
    rec = {"game": "shoal", "players": names, "options": {"goal": goal}, "actions": actions}
    proc = replay(write_record(rec))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["game"] == "shoal" and out["players"] == names
    assert out["over"] is True and out["current"] is None
    state = engine.replay(GAME, GAME.new(names, {"goal": goal}), actions)
    layouts = {}
    for name in names:
        shoal = out["state"]["shoals"][name]
        assert shoal["cards"] == 10
        layouts[name] = from_cells(shoal["cells"])
        assert layouts[name] == top_most(state, name)
    expected = score(layouts, state.deck.goals[goal])
    assert out["scores"] == {n: expected[n]["total"] for n in names}
    assert out["state"]["breakdown"] == {n: expected[n]["breakdown"] for n in names}
    top = max(out["scores"].values())
    assert out["winners"] == [n for n in names if out["scores"][n] == top]


def test_a_game_in_progress_names_the_player_to_act(write_record: Write) -> None:
    names = ["Ann", "Ben", "Cid"]
    actions = random_game(random.Random(7), names)[:7]
    proc = replay(write_record({"game": "shoal", "players": names,
                                "options": {"goal": "G1"}, "actions": actions}))
    out = json.loads(proc.stdout)
    assert proc.returncode == 0
    assert out["over"] is False and out["current"] == "Ben" and out["winners"] == []


def test_the_rulebook_example_replays_to_27() -> None:
    proc = replay(RULEBOOK)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["scores"]["Ann"] == 27
    assert [b["points"] for b in out["state"]["breakdown"]["Ann"]] == [4, -6, -8]


def test_an_illegal_card_stops_the_replay(write_record: Write) -> None:
    names = ["Ann", "Ben", "Cid", "Dee"]
    actions = random_game(random.Random(4), names)
    actions[25] = {**actions[25], "card": actions[3]["card"]}   # a card laid already
    proc = replay(write_record({"game": "shoal", "players": names,
                                "options": {"goal": "G1"}, "actions": actions}))
    assert proc.returncode == 1
    error = json.loads(proc.stdout)["error"]
    assert error["index"] == 25
    assert "each card is played once per game" in error["message"]


def test_bad_options_exit_2(write_record: Write) -> None:
    proc = replay(write_record({"game": "shoal", "players": ["Ann", "Ben"],
                                "options": {"goal": "G42"}, "actions": []}))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "no goal card 'G42'" in proc.stderr and proc.stderr.count("\n") == 1
