"""``companion score shoal``: layout text files (a real subprocess) and the photo hand-off."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.engine import replay
from companion.games.shoal import commands as shoal_commands
from companion.games.shoal.layout import parse_text, render_text
from companion.games.shoal.rules import GAME
from companion.games.shoal.scoring import score
from tests.games.shoal.helpers import RULEBOOK

COMPANION = [sys.executable, "-m", "companion.cli"]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMPANION, "score", "shoal", *map(str, args)], capture_output=True,
                          text=True, timeout=60, check=False)


@pytest.fixture
def layouts(tmp_path: Path) -> list[Path]:
    """The rulebook game's two finished shoals as layout text files."""
    rec = json.loads(RULEBOOK.read_text("utf-8"))
    state = replay(GAME, GAME.new(rec["players"], rec["options"]), rec["actions"])
    paths = []
    for name in rec["players"]:
        path = tmp_path / f"{name.lower()}.txt"
        path.write_text(render_text(state.shoals[name]), encoding="utf-8")
        paths.append(path)
    return paths


def test_json_scores_every_layout(layouts: list[Path]) -> None:
    proc = run("--goal", "G1", "--layout", *layouts, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    parsed = {p.stem: parse_text(p.read_text("utf-8")) for p in layouts}
    assert out == score(parsed, GAME.new(["a", "b"], {"goal": "G1"}).goal)
    assert out["ann"]["total"] == 27 and out["ann"]["fish"] == 37
    assert [b["points"] for b in out["ann"]["breakdown"]] == [4, -6, -8]


def test_text_output_shows_totals_breakdown_and_the_layout(layouts: list[Path]) -> None:
    proc = run("--goal", "G1", "--layout", *layouts)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "ann: 27 points (37 fish)" in text
    assert "  +4  each puffer: +2 per fish  (counted 2)" in text
    assert "  -8  total amount of sardine fish" in text
    assert "sardine*3" in text and "angel+puffer" in text
    assert "winner: ben" in text


def test_goal_card_inline_or_from_a_file(layouts: list[Path], tmp_path: Path) -> None:
    goal = {"id": "mine", "goals": [{"type": "each", "what": "fish", "points": 1},
                                    {"type": "tallest", "points": 10},
                                    {"type": "connection", "what": "tang", "length": 2,
                                     "points": 3}]}
    inline = run("--goal", json.dumps(goal), "--layout", layouts[0], "--json")
    assert inline.returncode == 0, inline.stderr
    (tmp_path / "goal.json").write_text(json.dumps(goal), encoding="utf-8")
    from_file = run("--goal", tmp_path / "goal.json", "--layout", layouts[0], "--json")
    assert json.loads(inline.stdout) == json.loads(from_file.stdout)
    ann = json.loads(inline.stdout)["ann"]
    assert ann["breakdown"][0]["points"] == 37
    assert ann["total"] == 37 + 37 + 10 + ann["breakdown"][2]["points"]


def test_another_deck_with_its_own_fish(tmp_path: Path) -> None:
    deck = {"cards": [{"id": "K1", "sections": [["carp", "empty"], ["carp+koi", "koi"]]}],
            "goals": [{"id": "P", "goals": [{"type": "largest", "what": "koi", "points": 5},
                                            {"type": "fewest", "what": "carp", "points": 2},
                                            {"type": "widest", "points": 1}]}]}
    (tmp_path / "deck.json").write_text(json.dumps(deck), encoding="utf-8")
    (tmp_path / "x.txt").write_text("legend: c=carp k=koi b=carp+koi\ncb\nkk\n")
    (tmp_path / "y.txt").write_text("legend: c=carp k=koi\ncc\n")
    proc = run("--goal", "P", "--deck", tmp_path, "--layout", tmp_path / "x.txt",
               tmp_path / "y.txt", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # 2 carp each: both fewest; both 2 sections wide: both widest; only x has koi
    assert out["x"]["total"] == 5 + 5 + 2 + 1
    assert out["y"]["total"] == 2 + 0 + 2 + 1


def test_layout_text_needs_no_deck_and_deck_only_adds_the_check(tmp_path: Path) -> None:
    # RULINGS.md: a table with its own deck scores layout text from the legend and the
    # goal card alone; the kinds are counted as written
    goal = json.dumps({"id": "S", "goals": [
        {"type": "each", "what": "seahorse", "points": 3},
        {"type": "largest", "what": "eel", "points": 5},
        {"type": "widest", "points": 1}]})
    (tmp_path / "x.txt").write_text("legend: s=seahorse e=empty h=seahorse+seahorse\nsh\nse\n")
    (tmp_path / "y.txt").write_text("legend: s=seahorse\ns\n")
    proc = run("--goal", goal, "--layout", tmp_path / "x.txt", tmp_path / "y.txt", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # x: 4 seahorses (+12); no eel anywhere (largest needs at least 1); widest 2 (+1)
    assert out["x"]["total"] == 4 + 12 + 0 + 1
    assert out["y"]["total"] == 1 + 3 + 0 + 0
    checked = run("--goal", goal, "--deck", "default", "--layout", tmp_path / "x.txt")
    assert checked.returncode == 2 and "seahorse" in checked.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--goal", "G1"], "nothing to score"),
    (["--goal", "G9", "--layout", "{ann}"], "no goal card 'G9'"),
    (["--goal", "{\"id\": ", "--layout", "{ann}"], "is not JSON"),
    (["--goal", "G1", "--layout", "{missing}"], "cannot read"),
    (["--goal", "G1", "--layout", "{bad}"], "row 1, column 2: 'z' is not in the legend"),
    (["--goal", "G1", "--deck", "default", "--layout", "{shark}"],
     "section [0, 0] shows 'shark', which no card"),
    (["--goal", "G1", "--layout", "{ann}", "{ann}"], "two files are both named 'ann'"),
    (["--goal", "G1", "--deck", "{missing}", "--layout", "{ann}"], "cannot read the deck"),
    (["--goal", "{\"goals\": []}", "--layout", "{ann}"], "must have 3 goals"),
])
def test_bad_input_exits_2_with_one_line(args: list[str], message: str,
                                         layouts: list[Path], tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_text("legend: a=angel\naz\n")
    (tmp_path / "shark.txt").write_text("legend: s=shark\ns\n")
    files = {"ann": layouts[0], "missing": tmp_path / "nope.txt",
             "bad": tmp_path / "bad.txt", "shark": tmp_path / "shark.txt"}
    proc = run(*[a.format(**files) if a.startswith("{") and a.endswith("}")
                 and a[1:-1] in files else a for a in args])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert message in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


# Photos: handed to the camera scoring's entry point -----------------------------------------


def test_photos_without_the_camera_scoring_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    monkeypatch.setattr(shoal_commands, "PHOTO_SCORING", "companion.nothing_installed")
    code = main(["score", "shoal", "--goal", "G1", str(tmp_path / "ann.jpg")])
    err = capsys.readouterr().err
    assert code == 2
    assert "camera scoring is not installed: score layout text with --layout" in err
    assert err.count("\n") == 1


def fake_vision(monkeypatch: pytest.MonkeyPatch, result: Any,
                calls: list[tuple[Any, ...]]) -> None:
    """Stand in for the installed camera scoring, to check the hand-off (arguments in,
    layouts out) without a camera."""
    def layouts_from_photos(photos: list[Path], deck: Path | None,
                            mat: Path | None) -> Any:
        calls.append((photos, deck, mat))
        if isinstance(result, Exception):
            raise result
        return result

    monkeypatch.setattr(shoal_commands, "photo_scorer", lambda: layouts_from_photos)


def test_photos_are_read_by_the_camera_scoring(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    calls: list[tuple[Any, ...]] = []
    fake_vision(monkeypatch, [{(0, 0): "angel+puffer", (1, 0): "empty"},
                              {(0, 0): "sardine+sardine"}], calls)
    code = main(["score", "shoal", "--goal", "G1", "--mat", str(tmp_path / "mat.json"),
                 str(tmp_path / "ann.jpg"), str(tmp_path / "ben.jpg"), "--json"])
    assert code == 0
    assert calls == [([tmp_path / "ann.jpg", tmp_path / "ben.jpg"], None,
                      tmp_path / "mat.json")]
    out = json.loads(capsys.readouterr().out)
    assert out["ann"]["total"] == 2 + 2 - 6      # fish, a puffer at +2, largest empty
    assert out["ben"]["total"] == 2


def test_a_camera_error_exits_2(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fake_vision(monkeypatch, ValueError("no markers found: is the mat in view?"), [])
    (tmp_path / "deck.json").write_text(
        (Path(__file__).parents[3] / "companion/games/shoal/default/deck.json").read_text())
    code = main(["score", "shoal", "--goal", "G1", "--deck", str(tmp_path),
                 str(tmp_path / "ann.jpg")])
    assert code == 2
    assert "no markers found: is the mat in view?" in capsys.readouterr().err
