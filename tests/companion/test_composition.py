"""The composition root: ``companion`` knows the other packages only through the entry
points of pyproject.toml, never by name, so the dependency rule (web, vision and hub use
companion, never the reverse) holds by construction."""

from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import sys
import tokenize
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
OUTSIDE = ("web", "vision", "hub")
"""Packages that use ``companion`` and must never be used by it."""
NAMED = re.compile(r"(?<![\w.-])(?:web|vision|hub)(?:[.:/]\w|`* packages?\b)")
"""A package named in text: ``web.commands``, ``vision/scoring.py``, ``hub:register``,
"the vision package"; plain words (the ``hub`` config key, "web page") are not names."""
TEXT = {tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
"""Tokens of text (Python 3.12 splits f-strings; 3.11 keeps them whole)."""
SOURCES = sorted((ROOT / "companion").rglob("*.py"))


def test_the_sources_are_found() -> None:
    assert ROOT / "companion" / "cli.py" in SOURCES and len(SOURCES) > 30


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_companion_imports_no_outside_package(path: Path) -> None:
    tree = ast.parse(path.read_text("utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            roots = [(node.module or "").split(".")[0]] if node.level == 0 else []
        else:
            continue
        assert not set(roots) & set(OUTSIDE), f"{path}:{node.lineno} imports {roots}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_companion_names_no_outside_package_in_text(path: Path) -> None:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline)
    for token in tokens:
        if token.type in TEXT:
            found = NAMED.search(token.string)
            assert found is None, (f"{path}:{token.start[0]} names {found.group()!r}: "
                                   "declare an entry point in pyproject.toml instead")


def test_the_name_pattern_catches_module_names_only() -> None:
    for named in ('"web.commands"', "vision/scoring.py", "the ``vision`` package",
                  "hub:register", "the web and vision packages"):
        assert NAMED.search(named), named
    for word in ('"hub"', "``hub``", "hub_username", "the web page", "a companion.webhook",
                 "vision"):
        assert not NAMED.search(word), word


def test_importing_all_of_companion_loads_no_outside_package() -> None:
    script = ("import pkgutil, importlib, sys, companion\n"
              "for m in pkgutil.walk_packages(companion.__path__, 'companion.'):\n"
              "    importlib.import_module(m.name)\n"
              f"print(sorted(n for n in sys.modules if n.split('.')[0] in {OUTSIDE!r}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]"


def test_every_command_entry_point_registers() -> None:
    points = {ep.name: ep for ep in entry_points(group="companion.commands")}
    assert {"serve", "vision", "score", "hw", "doctor"} <= set(points), (
        "entry points missing: run `make install` (pip install -e .) again")
    for name, point in points.items():
        sub = argparse.ArgumentParser().add_subparsers()
        point.load()(sub)
        assert sub.choices, f"{name} registered no command"


def test_every_doctor_entry_point_has_checks() -> None:
    points = {ep.name: ep for ep in entry_points(group="companion.doctor")}
    assert {"web", "vision"} <= set(points)
    for point in points.values():
        checks = point.load().CHECKS
        assert checks and all(callable(c) for c in checks)


def test_shoal_photos_are_scored_by_the_installed_camera_scoring() -> None:
    from companion.games.shoal.commands import photo_scorer
    from vision.scoring import layouts_from_photos
    assert photo_scorer() is layouts_from_photos
