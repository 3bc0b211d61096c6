"""Every test module stands alone: shared helpers live in tests/support (or a helper
module beside the tests), never in another test module."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


def test_no_test_module_imports_another() -> None:
    offenders = [f"{path.relative_to(TESTS)} imports {name}"
                 for path in sorted(TESTS.rglob("test_*.py"))
                 for name in imported_modules(path)
                 if name.split(".")[-1].startswith("test_")]
    assert offenders == []
