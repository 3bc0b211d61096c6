"""Deck calibration: templates from card images, cached, rebuilt when the deck changes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import templates
from vision.decks import load_deck, load_faces
from vision.errors import VisionError
from vision.images import load as read_image


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))


def test_templates_are_cached_and_rebuilt_when_a_card_image_changes(deck_dir: Path,
                                                                    tmp_path: Path) -> None:
    folder = tmp_path / "deck"
    shutil.copytree(deck_dir, folder)
    first = templates.shoal_templates(load_deck(folder))
    assert not first.cached
    assert len(first.labels) == 1 + 4 * 40 and first.labels[0] == templates.NO_CARD
    again = templates.shoal_templates(load_deck(folder))
    assert again.cached and np.array_equal(again.features, first.features)
    img = read_image(folder / "F01.png")
    cv2.imwrite(str(folder / "F01.png"), 255 - img)
    st = (folder / "F01.png").stat()
    os.utime(folder / "F01.png", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    changed = templates.shoal_templates(load_deck(folder))
    assert not changed.cached
    assert not np.array_equal(changed.features[1:5], first.features[1:5])  # F01's sections
    assert np.array_equal(changed.features[5:], first.features[5:])


def test_a_changed_deck_json_rebuilds_too(deck_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "deck"
    shutil.copytree(deck_dir, folder)
    templates.shoal_templates(load_deck(folder))
    data = json.loads((folder / "deck.json").read_text())
    data["cards"][0]["sections"][0][0] = "clown"
    (folder / "deck.json").write_text(json.dumps(data))
    rebuilt = templates.shoal_templates(load_deck(folder))
    assert not rebuilt.cached and rebuilt.labels[1] == "clown"


def test_card_images_of_any_resolution_give_the_same_templates(deck_dir: Path,
                                                               tmp_path: Path) -> None:
    folder = tmp_path / "deck"
    shutil.copytree(deck_dir, folder)
    for png in folder.glob("*.png"):
        img = read_image(png)
        cv2.imwrite(str(png), cv2.resize(img, None, fx=0.5, fy=0.5,
                                         interpolation=cv2.INTER_AREA))
    small = templates.shoal_templates(load_deck(folder))
    full = templates.shoal_templates(load_deck(deck_dir))
    assert np.abs(small.features - full.features).mean() < 0.01


def test_a_deck_without_images_or_with_a_broken_one_is_refused(deck_dir: Path,
                                                               tmp_path: Path) -> None:
    with pytest.raises(VisionError, match=r"has no image for card F01 \(40 cards"):
        templates.shoal_templates(load_deck("default"))
    folder = tmp_path / "deck"
    shutil.copytree(deck_dir, folder)
    (folder / "F02.png").write_text("scribble")
    with pytest.raises(VisionError, match=r"F02\.png is not an image"):
        templates.shoal_templates(load_deck(folder))


def test_faces_templates_carry_their_face(faces_dir: Path) -> None:
    built = templates.poo_templates(load_faces(faces_dir))
    assert built.labels[:3] == ("closed", "blank", "sleeper")
    assert set(built.labels[3:]) == {"object"}
