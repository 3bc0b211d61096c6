"""The Shoal reader on synthetic photos of the shipped deck (generated card art)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.games.shoal.deck import Deck, load_deck
from companion.games.shoal.scoring import score
from vision import shoal, synth
from vision.decks import load_deck as vision_deck
from vision.images import load as read_image
from vision.mat import MatSpec
from vision.scoring import layouts_from_photos

from .helpers import errors


def cell(text: str) -> tuple[int, int]:
    """``"x,y"`` as the layout's (x, y)."""
    x, y = text.split(",")
    return int(x), int(y)


@pytest.fixture(scope="module")
def deck(deck_dir: Path) -> Deck:
    return vision_deck(deck_dir)


@pytest.fixture(scope="module")
def reader(deck: Deck, a3: MatSpec) -> shoal.ShoalReader:
    return shoal.ShoalReader(deck, a3)


def scene(deck: Deck, a3: MatSpec, seed: int, preset: str) -> synth.Scene:
    return synth.shoal_scene(deck.to_json(), a3, seed, synth.PRESETS[preset])


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_clean_photos_are_read_exactly(deck: Deck, reader: shoal.ShoalReader,
                                       a3: MatSpec, seed: int) -> None:
    s = scene(deck, a3, seed, "clean")
    reading = reader.read(s.photo)
    assert reading.cells == s.cells
    assert min(reading.confidence.values()) > 0.5
    assert reading.hidden == [] and reading.to_json()["retake"] is None  # no glare
    # what a player may give an unsure cell: every section of the deck, then no card
    sections = {v for card in deck.cards.values() for row in card.sections for v in row}
    assert reading.to_json()["values"] == [*sorted(sections), "no-card"]
    xs = [int(c.split(",")[0]) for c in reading.cells]
    ys = [int(c.split(",")[1]) for c in reading.cells]
    assert min(xs) == 0 and min(ys) == 0


def test_every_distortion_alone_keeps_the_reading_nearly_exact(
        deck: Deck, reader: shoal.ShoalReader, a3: MatSpec) -> None:
    wrong = total = 0
    for preset in synth.PRESETS:
        if preset in ("clean", "hard"):
            continue
        s = scene(deck, a3, 100 + len(preset), preset)
        reading = reader.read(s.photo)
        wrong += errors(s.cells, reading.cells)
        total += len(s.cells)
    assert total > 200
    assert wrong / total <= 0.02, f"{wrong} of {total} cells wrong"


def test_hard_photos_stay_above_the_accuracy_bound(deck: Deck, reader: shoal.ShoalReader,
                                                   a3: MatSpec) -> None:
    """Everything at once: tilt, spin, distance, lens, light, glare, shadow, noise, blur,
    JPEG, careless hands."""
    wrong = total = 0
    for seed in range(200, 206):
        s = scene(deck, a3, seed, "hard")
        reading = reader.read(s.photo)
        wrong += errors(s.cells, reading.cells)
        total += len(s.cells)
    assert wrong / total <= 0.05, f"{wrong} of {total} cells wrong"


def test_a_card_washed_out_in_the_middle_of_the_shoal_is_asked_about(
        deck: Deck, reader: shoal.ShoalReader, a3: MatSpec) -> None:
    """A section the lamp's reflection turns an even white (below clipping, so not glare
    to retake) shows no outline and matches nothing; with the shoal on all four sides it
    is a hole a player seldom leaves, asked about rather than left out silently."""
    s = scene(deck, a3, 11, "clean")
    x, y, w, h = reader.read(s.photo).boxes_mm["2,2"]
    corners = s.to_photo(np.array([(x, y), (x + w, y), (x + w, y + h), (x, y + h)], float))
    photo = s.photo.copy()
    cv2.fillConvexPoly(photo, np.round(corners).astype(np.int32), (236, 236, 236))
    reading = reader.read(photo)
    assert "2,2" not in reading.cells and "2,2" in reading.doubtful
    assert "2,2" in reading.unsure() and reading.hidden == []
    assert reading.cells == {k: v for k, v in s.cells.items() if k != "2,2"}


def test_score_from_a_photo_equals_the_score_of_the_true_layout(deck_dir: Path, deck: Deck,
                                                                a3: MatSpec,
                                                                tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]
                                                                ) -> None:
    scenes = {name: scene(deck, a3, seed, "tilt") for name, seed in (("ann", 31), ("ben", 32))}
    photos = []
    for name, s in scenes.items():
        path = tmp_path / f"{name}.jpg"
        cv2.imwrite(str(path), s.photo)
        photos.append(path)
    goal = load_deck(deck_dir).goals["G1"]
    truth = {name: {cell(c): v for c, v in s.cells.items()} for name, s in scenes.items()}
    seen = dict(zip(scenes, layouts_from_photos(photos, deck_dir, None), strict=True))
    assert seen == truth
    expected = score(truth, goal)
    assert main(["score", "shoal", "--goal", "G1", "--deck", str(deck_dir), "--json",
                 *map(str, photos)]) == 0
    assert json.loads(capsys.readouterr().out) == expected


def test_cli_prints_the_vision_contract_and_an_overlay(deck_dir: Path, deck: Deck, a3: MatSpec,
                                                      tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    s = scene(deck, a3, 41, "jitter")
    photo, overlay = tmp_path / "p.png", tmp_path / "o.png"
    cv2.imwrite(str(photo), s.photo)
    assert main(["vision", "read", "shoal", str(photo), "--deck", str(deck_dir / "deck.json"),
                 "--json", "--overlay", str(overlay)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"game", "cells", "confidence", "ms"} <= set(out) and out["game"] == "shoal"
    assert out["cells"] == s.cells
    assert set(out["confidence"]) == set(out["cells"])
    assert all(0 <= v <= 1 for v in out["confidence"].values())
    drawn = read_image(overlay)
    assert drawn.shape == s.photo.shape and (drawn != s.photo).any()


def test_a_phones_12_mpx_photo_is_read_at_half_its_size(
        deck_dir: Path, deck: Deck, a3: MatSpec, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A phone's photo (4032 x 3024, JPEG) is decoded at half size and read as the same
    shoal: the overlay is drawn on what was read."""
    s = scene(deck, a3, 41, "jitter")
    photo, overlay = tmp_path / "phone.jpg", tmp_path / "o.png"
    cv2.imwrite(str(photo), cv2.resize(s.photo, (4032, 3024), interpolation=cv2.INTER_CUBIC),
                [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert main(["vision", "read", "shoal", str(photo), "--deck", str(deck_dir / "deck.json"),
                 "--json", "--overlay", str(overlay)]) == 0
    assert json.loads(capsys.readouterr().out)["cells"] == s.cells
    assert read_image(overlay).shape == (1512, 2016, 3)


def test_unreadable_input_exits_2_with_what_to_do(deck_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.jpg"
    text.write_text("not a photo")
    blank = tmp_path / "wall.png"
    cv2.imwrite(str(blank), 128 + 0 * read_image(deck_dir / "F01.png"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "deck.json").write_text('{"section_mm": [44, 31.5], "cards": []}')
    cases = [
        ([str(text), "--deck", str(deck_dir)], "is not an image OpenCV can read"),
        ([str(blank), "--deck", str(deck_dir)], "no markers found: is the mat in view?"),
        ([str(blank), "--deck", str(tmp_path / "bad")], "the deck does not load"),
        ([str(blank)], "has no image for card F01 .*capture-deck"),
    ]
    for args, message in cases:
        assert main(["vision", "read", "shoal", *args, "--json"]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert len(captured.err.strip().splitlines()) == 1
        assert re.search(message, captured.err), captured.err
