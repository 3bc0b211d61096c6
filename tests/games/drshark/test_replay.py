"""Whole Dr. Shark games through the real ``companion replay`` command, and the hardware's
path through :class:`companion.table.Table`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from companion.engine import IllegalAction
from companion.store import Store
from companion.table import Table
from tests.games.drshark.play import random_game

NAMES = ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay"]


def replay(tmp_path: Path, rec: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec))
    out = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path),
                          "--json"], capture_output=True, text=True, timeout=60)
    return out.returncode, json.loads(out.stdout) if out.stdout else {"stderr": out.stderr}


def expected_scores(state: dict[str, Any]) -> dict[str, int]:
    """Score = evidence points + unassigned clues, recounted from the printed state."""
    points = {e: v["points"] for e, v in state["catalogue"]["evidence"].items()}
    return {who: sum(points[e] for e in d["evidence"]) + len(d["clues"])
            for who, d in state["dossiers"].items()}


@pytest.mark.parametrize("players,teams,rounds,seed", [
    (2, False, 10, 11), (4, True, 6, 12), (5, False, 8, 13), (6, True, 6, 14)])
def test_full_games_replay_to_their_outcome(tmp_path: Path, players: int, teams: bool,
                                            rounds: int, seed: int) -> None:
    names = NAMES[:players]
    actions, _ = random_game(names, {"teams": teams} if teams else {}, seed)
    kinds = Counter(a["type"] for a in actions)
    assert kinds["end_turn"] == players * rounds
    assert kinds["draw"] and kinds["fistful"] and kinds["take"] and kinds["form"]
    code, out = replay(tmp_path, {"game": "drshark", "players": names,
                                  "options": {"teams": teams}, "actions": actions})
    assert code == 0, out
    state = out["state"]
    assert out["over"] is True and out["current"] is None
    assert state["round"] == state["rounds"] == rounds
    owners = ["+".join((names[i], names[i + players // 2])) for i in range(players // 2)] \
        if teams else names
    assert list(out["scores"]) == list(state["dossiers"]) == owners
    assert out["scores"] == expected_scores(state)
    best = max(out["scores"].values())
    assert out["winners"] == [o for o, s in out["scores"].items() if s == best]
    # Every clue is somewhere, once: bag, dossiers or box (the mat is empty at the end).
    places = state["bag"] + state["box"] + [c for d in state["dossiers"].values()
                                            for c in d["clues"]]
    assert sorted(places) == sorted(c["id"] for c in state["catalogue"]["clues"])
    positions = state["positions"]
    assert set(positions) == set(names) and len(set(positions.values())) == players


def test_a_timer_only_game_replays_to_its_tally(tmp_path: Path) -> None:
    turn = [{"type": "start_search"}, {"type": "time_up"}]
    tally = {"type": "tally", "dossiers": {
        "Ann": {"evidence": {"passport": 1, "moustache": 1, "watch": 2}, "clues": 8},
        "Ben": {"evidence": {"umbrella-gun": 1}, "clues": 2},
        "Cid": {"evidence": {"passport": 2, "wig": 1, "city-plan": 1}, "clues": 0}}}
    rec = {"game": "drshark", "players": ["Ann", "Ben", "Cid"], "options": {},
           "actions": turn * 30}
    code, out = replay(tmp_path, rec)
    assert code == 0 and out["over"] is False and out["state"]["phase"] == "tally"
    code, out = replay(tmp_path, {**rec, "actions": turn * 30 + [tally]})
    assert code == 0 and out["over"] is True
    assert out["scores"] == {"Ann": 42, "Ben": 9, "Cid": 42}
    assert out["winners"] == ["Ann", "Cid"]


def test_an_illegal_search_stops_the_replay_at_its_index(tmp_path: Path) -> None:
    rec = {"game": "drshark", "players": ["Ann", "Ben"], "options": {}, "actions": [
        {"type": "move", "space": "A-light"}, {"type": "start_search"},
        {"type": "draw", "clue": "watch-1a"}, {"type": "draw", "clue": "watch-1a"}]}
    code, out = replay(tmp_path, rec)
    assert code == 1
    assert out["error"]["index"] == 3
    assert out["error"]["message"] == "watch-1a is not in the bag: it is on the mat"


def test_bad_options_exit_2_with_one_line(tmp_path: Path) -> None:
    rec = {"game": "drshark", "players": ["Ann", "Ben", "Cid"], "options": {"teams": True},
           "actions": []}
    code, out = replay(tmp_path, rec)
    assert code == 2 and "team play needs 4 or 6" in out["stderr"]
    assert out["stderr"].count("\n") == 1


def test_the_timer_drives_searches_through_the_table(tmp_path: Path) -> None:
    table = Table(Store(tmp_path / "companion.db"))
    session = table.create("drshark", ["Ann", "Ben"], {})
    allowed = lambda: {leg.type for leg in session.game.legal(session.state)}  # noqa: E731
    table.play(session.id, {"type": "move", "space": "B-light"})
    assert "start_search" in allowed() and "time_up" not in allowed()
    table.play(session.id, {"type": "start_search"})
    table.play(session.id, {"type": "draw", "clue": "wig-1a"})
    assert {"time_up", "stop"} <= allowed()
    table.play(session.id, {"type": "time_up"})
    assert not {"start_search", "time_up", "stop"} & allowed()
    with pytest.raises(IllegalAction):
        table.play(session.id, {"type": "stop"})
    assert session.seq == 4
    table.play(session.id, {"type": "end_turn"})
    reopened = Table(Store(tmp_path / "companion.db")).get(session.id)
    summary = reopened.summary()
    assert summary["current"] == "Ben" and summary["scores"] == {"Ann": 1, "Ben": 0}
    assert summary["state"]["dossiers"]["Ann"]["clues"] == ["wig-1a"]
