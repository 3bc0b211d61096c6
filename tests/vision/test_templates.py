"""Deck calibration: templates from card images, and what is worked out from them, cached,
rebuilt when the deck, the faces or the code that builds them changes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import calibration, templates
from vision.decks import load_deck, load_faces
from vision.errors import VisionError
from vision.images import load as read_image
from vision.mat import read_photo
from vision.shoal import ShoalReader


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


def test_margins_are_worked_out_once_per_deck(deck_dir: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """What every template scores against every other is cached with the templates, the
    same numbers, and worked out anew when a card image changes."""
    folder = tmp_path / "deck"
    shutil.copytree(deck_dir, folder)
    built = templates.shoal_templates(load_deck(folder))
    skip = frozenset({templates.NO_CARD})
    first = calibration.margins(built, skip)
    worked: list[int] = []
    real = calibration._margins

    def counted(t: templates.Templates, s: frozenset[str]) -> calibration.Margins:
        worked.append(1)
        return real(t, s)

    monkeypatch.setattr(calibration, "_margins", counted)
    again = calibration.margins(templates.shoal_templates(load_deck(folder)), skip)
    assert not worked
    assert again.worn == first.worn and again.alike == first.alike
    assert again.nearest.dtype == first.nearest.dtype
    assert np.array_equal(again.nearest, first.nearest)
    assert calibration.margins(built, frozenset()) is not None and worked == [1]
    img = read_image(folder / "F01.png")
    cv2.imwrite(str(folder / "F01.png"), 255 - img)
    changed = templates.shoal_templates(load_deck(folder))
    fresh = calibration.margins(changed, skip)
    assert worked == [1, 1] and not np.array_equal(fresh.nearest, first.nearest)


def test_a_changed_faces_file_or_face_image_rebuilds(faces_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "faces"
    shutil.copytree(faces_dir, folder)
    first = templates.poo_templates(load_faces(folder))
    assert not first.cached and templates.poo_templates(load_faces(folder)).cached
    data = json.loads((folder / "faces.json").read_text())
    data["faces"]["blank"], data["faces"]["sleeper"] = data["faces"]["sleeper"], \
        data["faces"]["blank"]
    (folder / "faces.json").write_text(json.dumps(data))
    swapped = templates.poo_templates(load_faces(folder))
    assert not swapped.cached and swapped.labels[1:3] == first.labels[1:3]
    assert np.array_equal(swapped.features[1], first.features[2])
    face = folder / data["faces"]["closed"][0]
    cv2.imwrite(str(face), 255 - read_image(face))
    assert not templates.poo_templates(load_faces(folder)).cached


def test_a_change_to_the_code_that_builds_them_rebuilds(deck_dir: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    deck = load_deck(deck_dir)
    templates.shoal_templates(deck)
    assert templates.shoal_templates(deck).cached
    with monkeypatch.context() as patch:
        patch.setattr(templates, "CODE", ("templates", "matching"))
        templates._code.cache_clear()
        try:
            assert not templates.shoal_templates(deck).cached
        finally:
            templates._code.cache_clear()
    assert templates.shoal_templates(deck).cached


def test_a_cache_file_cut_short_is_built_anew(faces_dir: Path, tmp_path: Path) -> None:
    first = templates.poo_templates(load_faces(faces_dir))
    (cached,) = (tmp_path / "cache" / "vision").glob("poodivers-*.npz")
    cached.write_bytes(cached.read_bytes()[:1000])
    again = templates.poo_templates(load_faces(faces_dir))
    assert not again.cached and np.array_equal(again.features, first.features)
    assert templates.poo_templates(load_faces(faces_dir)).cached


def test_a_changed_mat_is_read_anew(tmp_path: Path) -> None:
    """Nothing of a mat is cached: a reader of the same deck built after mat.json changed
    finds the mat the file now describes."""
    blender = Path(__file__).parent / "blender"
    (tmp_path / "mat.json").write_text((blender / "linen" / "mat.json").read_text())
    photo = read_photo(blender / "photos" / "00.jpg")
    assert ShoalReader.from_files(blender / "linen" / "deck", tmp_path).read(photo).cells
    spec = json.loads((tmp_path / "mat.json").read_text())
    spec["markers"] = {str(int(k) + 1): v for k, v in spec["markers"].items()}
    (tmp_path / "mat.json").write_text(json.dumps(spec))
    with pytest.raises(VisionError, match="markers"):
        ShoalReader.from_files(blender / "linen" / "deck", tmp_path).read(photo)
