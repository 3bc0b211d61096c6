"""Shared fixtures of the vision tests: a deck and faces with generated card art, the
project's mat."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from companion.games.shoal.deck import load_deck
from vision import art, mat
from vision.decks import Faces, load_faces
from vision.images import load as read_image
from vision.synth_tables import STYLES, Table, write_table


@pytest.fixture(scope="session")
def deck_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped Shoal deck with a generated image per card."""
    folder = tmp_path_factory.mktemp("deck")
    art.write_deck(folder, load_deck("default").to_json())
    return folder


@pytest.fixture(scope="session")
def faces_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("faces")
    art.write_faces(folder)
    return folder


@pytest.fixture(scope="session")
def faces(faces_dir: Path) -> Faces:
    return load_faces(faces_dir)


@pytest.fixture(scope="session")
def face_images(faces: Faces) -> dict[str, list[np.ndarray]]:
    return {k: [read_image(p) for p in v] for k, v in faces.faces.items()}


@pytest.fixture(scope="session")
def a3() -> mat.MatSpec:
    return mat.standard("A3")



@pytest.fixture(scope="session")
def user_table(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Table]:
    """``user_table("offwhite")``: a style of :mod:`vision.synth_tables` written to disk
    once per session (mat.json, deck/, faces/)."""
    tables: dict[str, Table] = {}

    def get(name: str) -> Table:
        if name not in tables:
            tables[name] = write_table(STYLES[name], tmp_path_factory.mktemp(name))
        return tables[name]

    return get
