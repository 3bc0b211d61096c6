"""Fixtures of every test: the template cache in the run's own folder, not the user's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Templates and margins cached per test run, set before any session fixture starts a
    server or a command (they inherit it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COMPANION_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
        yield
