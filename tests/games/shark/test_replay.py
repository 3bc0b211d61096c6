"""Complete games of Shark through the real ``companion replay`` command (a subprocess):
one for each way a game ends, bankruptcy included, and the README's example with every
figure worked out by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion import engine, record
from companion.games.shark import GAME

RECORDS = Path(__file__).parent / "records"
SCRIPT = Path(sys.executable).parent / "companion"
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "companion.cli"]


def replay(path: Path) -> tuple[int, dict[str, Any]]:
    out = subprocess.run([*COMMAND, "replay", str(path), "--json"], capture_output=True,
                         text=True, timeout=60)
    assert not out.stderr, out.stderr
    return out.returncode, json.loads(out.stdout)


@pytest.mark.parametrize(("name", "reason"), [
    ("bankruptcy", "is the only player left: everyone else is bankrupt"),
    ("top-price", "reached $15,000"),
    ("buildings-out", "building is left in the supply"),
    ("shares-out", "share has been bought"),
])
def test_a_complete_game_replays_to_its_end(name: str, reason: str) -> None:
    code, out = replay(RECORDS / f"{name}.json")
    assert code == 0
    assert out["game"] == "shark" and out["over"] is True and out["current"] is None
    state = out["state"]
    assert reason in state["ended"] and state["pending"] is None
    alive = {p: s for p, s in out["scores"].items() if p not in state["bankrupt"]}
    assert out["winners"] == [p for p, s in alive.items() if s == max(alive.values())]
    for player, score in out["scores"].items():
        held = sum(n * state["prices"][c] for c, n in state["shares"][player].items())
        assert score == state["cash"][player] + held
    # the command prints what the engine computes in process
    rec = record.load(RECORDS / f"{name}.json")
    assert out == GAME.summary(_fold(rec))


def _fold(rec: record.Record) -> Any:
    return engine.replay(GAME, GAME.new(rec.players, rec.options), rec.actions)


def test_the_bankruptcy_game_leaves_one_player() -> None:
    _, out = replay(RECORDS / "bankruptcy.json")
    [loser] = out["state"]["bankrupt"]
    assert out["winners"] == [p for p in out["players"] if p != loser]
    assert out["scores"][loser] == 0


def test_every_logged_roll_has_its_faces() -> None:
    for path in RECORDS.glob("*.json"):
        actions = json.loads(path.read_text())["actions"]
        assert all({"company", "area"} <= set(a) for a in actions if a["type"] == "roll")


def test_the_readme_example_by_hand() -> None:
    code, out = replay(RECORDS / "readme-example.json")
    assert code == 0 and out["over"] is False and out["current"] == "Ann"
    state = out["state"]
    # Cid's red C6 makes a chain of 3 next to green's 2: red $3000, green removed to $0
    assert state["prices"] == {"red": 3000, "blue": 1000, "green": 0, "yellow": 0}
    assert state["board"] == {"A1": "blue", "A6": "red", "B6": "red", "C6": "red"}
    assert state["removed"]["green"] == 2 and state["supply"]["buildings"]["green"] == 16
    # Ann: 2000 + 1000 lone + 1000 dividend + 2000 bonus - 2000 red + 3000 + 3000
    # Ben: 2000 + 1000 + 1000 + 1000 dividend + 2000 bonus - 2000 loss (green $2000 -> 0)
    # Cid: 2000 + 1000 + 1000 - 2000 green + 3000 dividend + 3000 bonus, no loss on his turn
    assert state["cash"] == {"Ann": 10000, "Ben": 5000, "Cid": 8000}
    assert out["scores"] == {"Ann": 19000, "Ben": 5000, "Cid": 8000}


def test_an_illegal_action_in_a_record_is_reported_with_its_index(tmp_path: Path) -> None:
    data = json.loads((RECORDS / "readme-example.json").read_text())
    assert data["actions"][6] == {"type": "roll", "company": "green", "area": "3"}
    data["actions"][7] = {"type": "place", "cell": "A5"}      # Ben's green next to red A6
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    code, out = replay(path)
    assert code == 1 and out["error"]["index"] == 7
    assert out["error"]["message"].startswith("A5 is next to a red building and green's "
                                              "chain (1) is not larger than red's (1)")


def test_bad_options_exit_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"game": "shark", "players": ["Ann", "Ben"],
                                "options": {"board": {"rows": ["11", "1"],
                                                      "area_die": ["1"]}}, "actions": []}))
    out = subprocess.run([*COMMAND, "replay", str(path), "--json"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().count("\n") == 0 and "board row 2 has 1 cells" in out.stderr
