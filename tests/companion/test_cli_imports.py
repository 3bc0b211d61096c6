"""The command line imports what a command needs when it runs: building the parser for
``--version``, ``replay`` or any command's ``--help`` loads none of the heavy libraries
(the speed itself is measured by benchmarks/cli_speed.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

HEAVY = ("flask", "werkzeug", "waitress", "cv2", "numpy", "serial", "gpiozero", "paho",
         "packaging", "segno")
RECORD = {"game": "poodivers", "players": ["Lu", "Max"], "options": {"layout": "square"},
          "actions": [{"type": "flip", "cell": "D4", "face": "object"}, {"type": "bank"}]}


def loaded(argv: list[str]) -> tuple[list[str], list[str]]:
    """The heavy libraries and the plugin modules loaded by ``companion argv``."""
    script = ("import sys, contextlib, io, json\n"
              "from companion.cli import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n"
              "    try:\n"
              f"        main({argv!r})\n"
              "    except SystemExit:\n"
              "        pass\n"
              "roots = {name.split('.')[0] for name in sys.modules}\n"
              f"print(json.dumps(sorted(roots & set({HEAVY!r}))))\n"
              "print(json.dumps(sorted(roots & {'web', 'vision', 'hub'})))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)
    heavy, plugins = done.stdout.splitlines()[-2:]
    return json.loads(heavy), json.loads(plugins)


def test_version_loads_no_plugin() -> None:
    assert loaded(["--version"]) == ([], [])


def test_replay_loads_no_plugin(tmp_path: Path) -> None:
    record = tmp_path / "rec.json"
    record.write_text(json.dumps(RECORD))
    assert loaded(["replay", str(record)]) == ([], [])


@pytest.mark.parametrize("command", sorted(ep.name for ep in
                                           entry_points(group="companion.commands")))
def test_a_commands_help_loads_no_heavy_library(command: str) -> None:
    heavy, _ = loaded([command, "--help"])
    assert heavy == [], f"`companion {command} --help` imports {heavy}: import them in the "\
                        "function that runs the command"


def test_the_list_of_commands_loads_no_heavy_library() -> None:
    heavy, plugins = loaded(["--help"])
    assert heavy == [] and {"web", "vision"} <= set(plugins)
