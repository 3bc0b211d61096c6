"""The command line imports what a command needs when it runs: building the parser for
``--version``, ``replay`` or any command's ``--help`` loads none of the heavy libraries
(the speed itself is measured by benchmarks/cli_speed.py)."""

from __future__ import annotations

import json
import os
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


def _as_a_shell_runs_it(script: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """``script`` in a new process without the BLAS thread variables (a user's shell has
    none; the test run may), its template cache in ``cache``."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True, env={**env, "COMPANION_CACHE": str(cache)})


def test_a_camera_read_loads_only_what_it_reads_with(tmp_path: Path) -> None:
    """``companion vision read`` imports no engine, store or record module, and its BLAS
    starts with one thread (no pool to spin, no threadpoolctl)."""
    blender = Path(__file__).parents[1] / "vision" / "blender"
    argv = ["vision", "read", "shoal", str(blender / "photos" / "00.jpg"), "--deck",
            str(blender / "linen" / "deck"), "--mat", str(blender / "linen"), "--json"]
    script = ("import sys, contextlib, io, json\n"
              "from companion.cli import main\n"
              "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
              f"    assert main({argv!r}) == 0\n"
              "assert json.loads(out.getvalue())['cells']\n"
              "print(json.dumps(sorted(sys.modules)))\n"
              "from threadpoolctl import threadpool_info\n"
              "print(json.dumps(sorted({p['num_threads'] for p in threadpool_info()})))\n")
    done = _as_a_shell_runs_it(script, tmp_path)
    modules, threads = (json.loads(line) for line in done.stdout.splitlines()[-2:])
    unused = {"companion.engine", "companion.store", "companion.record",
              "companion.games.shoal.rules", "threadpoolctl", "sqlite3", "flask"}
    assert unused.isdisjoint(modules), sorted(unused.intersection(modules))
    assert threads == [1]


def test_the_command_line_leaves_what_it_built_to_the_operating_system(tmp_path: Path) -> None:
    """Run as the process's command line, ``main`` freezes the collector's objects (the
    interpreter's last collections then skip them); called with arguments, as a test
    or another program calls it, it leaves the collector alone."""
    record = tmp_path / "rec.json"
    record.write_text(json.dumps(RECORD))
    script = ("import contextlib, gc, io, sys\n"
              "from companion.cli import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n"
              f"    main(['replay', {str(record)!r}])\n"
              "    called = gc.get_freeze_count()\n"
              f"    sys.argv = ['companion', 'replay', {str(record)!r}]\n"
              "    main()\n"
              "print(called, gc.get_freeze_count() > 1000)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.split() == ["0", "True"]


def test_scoring_photos_starts_blas_with_one_thread(tmp_path: Path) -> None:
    """``companion score shoal PHOTO`` loads the camera scoring without numpy, which is
    imported when photos are read, BLAS told one thread first."""
    blender = Path(__file__).parents[1] / "vision" / "blender"
    script = ("import sys, json\n"
              "from companion.games.shoal.commands import photo_scorer\n"
              "score = photo_scorer()\n"
              "light = 'numpy' not in sys.modules\n"
              "try:\n"
              f"    score([{str(blender / 'photos' / '00.jpg')!r}], "
              f"{str(blender / 'linen' / 'deck')!r}, {str(blender / 'linen')!r})\n"
              "except ValueError:\n"
              "    pass  # a cell the reader is unsure of\n"
              "used = 'threadpoolctl' in sys.modules\n"
              "from threadpoolctl import threadpool_info\n"
              "print(json.dumps([light, used, [p['num_threads'] for p in threadpool_info()]]))\n")
    done = _as_a_shell_runs_it(script, tmp_path)
    light, used, threads = json.loads(done.stdout.splitlines()[-1])
    assert light and not used and set(threads) == {1}
