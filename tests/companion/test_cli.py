"""The command line through a real subprocess: exit codes and JSON shapes."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

COMPANION = [sys.executable, "-m", "companion.cli"]


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMPANION, *args], capture_output=True, text=True, timeout=60,
                          env=env)


def write(tmp_path: Path, data: object, name: str = "rec.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


GAME = {"game": "poodivers", "players": ["Lu", "Max"], "options": {"layout": "square"},
        "actions": [{"type": "flip", "cell": "D4", "face": "object"},
                    {"type": "flip", "cell": "E4", "face": "object"},
                    {"type": "bank"},
                    {"type": "flip", "cell": "A1", "face": "blank"}]}


def test_replay_prints_the_summary_as_json(tmp_path: Path) -> None:
    out = run("replay", str(write(tmp_path, GAME)), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["game"] == "poodivers" and data["players"] == ["Lu", "Max"]
    assert data["over"] is False and data["current"] == "Lu" and data["winners"] == []
    assert data["scores"] == {"Lu": 3, "Max": 0}
    state = data["state"]
    assert state["cells"]["D4"] == "object" and state["cells"]["H8"] == "closed"
    assert len(state["cells"]) == 64
    assert state["supply"] == {"brown": 17, "golden": 30}
    assert state["holdings"]["Lu"] == {"brown": 3, "golden": 0}
    assert state["turn_points"] == 0
    assert state["diver"] == {"cell": "D4", "direction": None}


def test_replay_without_json_prints_words(tmp_path: Path) -> None:
    out = run("replay", str(write(tmp_path, GAME)))
    assert out.returncode == 0
    assert "Lu: 3" in out.stdout and "to play: Lu" in out.stdout


def test_an_illegal_action_exits_1_with_its_index(tmp_path: Path) -> None:
    bad = {**GAME, "actions": [*GAME["actions"], {"type": "flip", "cell": "A1",
                                                   "face": "object"}]}
    out = run("replay", str(write(tmp_path, bad)), "--json")
    assert out.returncode == 1
    err = json.loads(out.stdout)["error"]
    assert err["index"] == 4
    assert err["action"] == {"type": "flip", "cell": "A1", "face": "object"}
    assert "A1 is already open" in err["message"]


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "not a JSON record"),
    ({"game": "chess", "players": ["a", "b"]}, "unknown game 'chess'"),
    ({"game": "poodivers", "players": ["a", "b"], "options": {"layout": "hex"}},
     "unknown layout"),
    ({"game": "poodivers", "players": "ab"}, "players"),
    ({"game": "poodivers", "players": ["a"]}, "2 to 8 players"),
    ({"game": "poodivers", "players": ["a", "b"], "actions": {}}, "actions"),
    ([1, 2], "JSON object"),
])
def test_a_malformed_record_exits_2_with_one_line(tmp_path: Path, content: object,
                                                  message: str) -> None:
    out = run("replay", str(write(tmp_path, content)), "--json")
    assert out.returncode == 2
    assert out.stdout == ""
    assert message in out.stderr and out.stderr.count("\n") == 1
    assert "Traceback" not in out.stderr


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    out = run("replay", str(tmp_path / "nope.json"))
    assert out.returncode == 2 and "cannot read" in out.stderr


def test_export_writes_a_record_that_replays(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    code = (
        "from companion.store import Store\nfrom companion.table import Table\n"
        f"t = Table(Store({str(db)!r}))\n"
        "s = t.create('poodivers', ['Lu', 'Max'], {'digital': True})\n"
        "t.play(s.id, {'type': 'flip', 'cell': 'C3'})\n"
        "print(s.id)\n"
    )
    sid = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    out = run("export", sid, "--db", str(db))
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["game"] == "poodivers" and rec["actions"][0]["face"] in (
        "blank", "sleeper", "object")
    replayed = run("replay", str(write(tmp_path, rec)), "--json")
    assert replayed.returncode == 0
    assert json.loads(replayed.stdout)["state"]["cells"]["C3"] == rec["actions"][0]["face"]
    listed = run("games", "--db", str(db), "--json")
    assert [g["id"] for g in json.loads(listed.stdout)] == [int(sid)]
    missing = run("export", "99", "--db", str(db))
    assert missing.returncode == 2 and "no game with id 99" in missing.stderr


def test_backup_command(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    code = ("from companion.store import Store\nfrom companion.table import Table\n"
            f"Table(Store({str(db)!r})).create('poodivers', ['Lu', 'Max'])\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    out = run("backup", str(tmp_path / "b.db"), "--db", str(db))
    assert out.returncode == 0, out.stderr
    listed = run("games", "--db", str(tmp_path / "b.db"), "--json")
    assert [g["players"] for g in json.loads(listed.stdout)] == [["Lu", "Max"]]
    again = run("backup", str(tmp_path / "b.db"), "--db", str(db))
    assert again.returncode == 2 and "exists already" in again.stderr


def test_version() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.startswith("companion ")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_answers_the_page_and_healthz(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([*COMPANION, "serve", "--host", "127.0.0.1", "--port",
                             str(port), "--db", str(tmp_path / "c.db")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz") as r:
                    health = json.load(r)
                    server = r.headers["Server"]
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert health["ok"] is True
        assert server == "companion"  # waitress, not Flask's development server
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as r:
            assert "Table companion" in r.read().decode()
    finally:
        proc.terminate()
        proc.wait(10)
