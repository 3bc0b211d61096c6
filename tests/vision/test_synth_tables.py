"""Synthetic tables: other mats, papers, lights and art, written as a user would."""

from __future__ import annotations

import random
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from vision import art_styles, mat, synth
from vision.decks import load_deck, load_faces
from vision.synth_light import light
from vision.synth_tables import LIGHTS, STYLES, Table

Tables = Callable[[str], Table]


def test_the_projects_paper_prints_the_projects_mat() -> None:
    spec = mat.standard("A3")
    assert np.array_equal(synth.print_mat(spec, synth.PROJECT_PAPER, 2.0), mat.render(spec, 2.0))


@pytest.mark.parametrize("name", sorted(STYLES))
def test_every_style_writes_files_the_loaders_read(name: str, user_table: Tables) -> None:
    style = STYLES[name]
    table = user_table(name)
    spec = mat.load(table.mat)
    assert spec.markers == style.mat.markers and spec.size_mm == style.mat.size_mm
    assert spec.dictionary == style.mat.dictionary
    deck = load_deck(table.deck)
    assert deck.section_mm == style.section_mm and len(deck.cards) == 40
    faces = load_faces(table.faces)
    assert faces.card_mm == style.card_mm and len(faces.faces["object"]) == style.objects


def test_a_user_table_photo_shows_its_own_markers_and_cells(user_table: Tables) -> None:
    table = user_table("offwhite")
    scene = table.shoal(4, "easy")
    found = mat.find_markers(mat.load(table.mat), scene.photo)
    assert sorted(found) == [7, 18, 29, 40]
    xs = [int(k.split(",")[0]) for k in scene.cells]
    assert max(xs) >= 2 and set(scene.cells.values()) - {"empty"}
    # the cards are where to_photo says: a marker's centre maps onto its detected centre
    centre = scene.to_photo(np.array([STYLES["offwhite"].mat.markers[29]]))[0]
    assert np.abs(found[29].mean(0) - centre).max() < 3


def _paper_pixels(table: Table, tier: str) -> np.ndarray:
    """The photo's pixels on bare paper along the mat's bottom edge, away from the cards."""
    style = table.style
    scene = table.poodivers(2, tier, "square")
    w, h = style.mat.size_mm
    pts = scene.to_photo(np.array([[x, h - 12.0] for x in np.linspace(w * 0.3, w * 0.7, 30)]))
    return np.array([scene.photo[round(y), round(x)] for x, y in pts], np.int32)


def test_a_clipped_exposure_clips_bare_white_paper(user_table: Tables) -> None:
    assert (_paper_pixels(user_table("bright"), "clipped") >= 254).all()


def test_a_tungsten_cast_is_strong(user_table: Tables) -> None:
    px = _paper_pixels(user_table("cream"), "tungsten").mean(0)
    assert px[0] < 0.6 * px[2]  # blue well under red on cream paper


def test_a_veil_lowers_contrast_without_clipping() -> None:
    rng = np.random.default_rng(1)
    canvas = rng.integers(20, 200, (400, 600, 3)).astype(np.uint8)
    plain, _ = light(canvas, random.Random(3), synth.Distortions(), 4.0)
    veiled, info = light(canvas, random.Random(3), LIGHTS["veil"], 4.0)
    assert np.array_equal(plain, canvas) and "veil_mm" in info
    assert veiled.max() < 250
    cx, cy = (round(v * 4) for v in info["veil_mm"])
    patch = (slice(max(cy - 20, 0), cy + 20), slice(max(cx - 20, 0), cx + 20))
    assert veiled[patch].std() < 0.75 * canvas[patch].std()


def test_unseen_objects_come_from_other_generators(user_table: Tables) -> None:
    for name in ("offwhite", "bright"):
        table = user_table(name)
        drawn = table.unseen(STYLES[name].card_mm, 5)
        for known in table.face_images["object"]:
            other = cv2.resize(drawn, known.shape[1::-1])
            assert np.abs(other.astype(int) - known).mean() > 20
    closed = table.face_images["closed"][0]
    like = art_styles.like_back(closed)((25.0, 25.0), 1)
    assert np.abs(like.reshape(-1, 3).mean(0) - closed.reshape(-1, 3).mean(0)).max() < 30
