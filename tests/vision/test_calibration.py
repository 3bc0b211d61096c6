"""Margins and confidence learned from the supplied images (vision.calibration), and
what `companion doctor` and `capture-deck` say about values too alike to tell apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from companion.doctor import Setup
from companion.settings import Settings
from vision import calibration, doctor, poo_odds, poodivers, templates
from vision.decks import load_deck, load_faces
from vision.mat import standard


def test_the_object_margin_lies_between_a_true_match_and_the_nearest_object(
        faces_dir: Path) -> None:
    faces = load_faces(faces_dir)
    reader = poodivers.PooDiversReader(faces, standard("A3"), ("####",))
    templates, margins = reader.templates, reader.margins
    labels = np.array(templates.labels)
    fixed = np.isin(labels, poo_odds.FIXED)
    nearest_object = float(calibration.cross(templates)[np.ix_(fixed, ~fixed)].min())
    margin = poo_odds.object_margin(templates, margins, 0.0)
    assert margins.worn < margin < nearest_object
    assert np.isclose(margin, np.sqrt(margins.worn * nearest_object))
    # a photo worse than the calibration moves the margin out, never past the objects
    worse = poo_odds.object_margin(templates, margins, 4 * margins.worn)
    assert margin < worse < nearest_object


def test_a_faces_file_without_object_pictures_still_has_a_margin(faces_dir: Path,
                                                                tmp_path: Path) -> None:
    folder = tmp_path / "faces"
    shutil.copytree(faces_dir, folder)
    data = json.loads((folder / "faces.json").read_text())
    data["faces"]["object"] = []
    (folder / "faces.json").write_text(json.dumps(data))
    reader = poodivers.PooDiversReader(load_faces(folder), standard("A3"), ("#",))
    d = calibration.cross(reader.templates)
    apart = d[~np.eye(3, dtype=bool)].min()
    margin = poo_odds.object_margin(reader.templates, reader.margins, 0.0)
    assert reader.margins.worn < margin < apart


def _twin_deck(deck_dir: Path, folder: Path) -> Path:
    """The deck with F02 printed like F01 but listed with other sections."""
    shutil.copytree(deck_dir, folder)
    shutil.copy(folder / "F01.png", folder / "F02.png")
    data = json.loads((folder / "deck.json").read_text())
    one, two = data["cards"][0]["sections"], data["cards"][1]["sections"]
    assert one != two
    return folder


def test_a_deck_with_two_near_identical_sections_is_reported(deck_dir: Path,
                                                             tmp_path: Path) -> None:
    assert calibration.alike_messages(deck=load_deck(deck_dir)) == []
    deck = load_deck(_twin_deck(deck_dir, tmp_path / "twin"))
    lines = calibration.alike_messages(deck=deck)
    assert lines and all("too alike" in line for line in lines[:5])
    assert any("card F01 top-left" in line and "card F02 top-left" in line
               for line in lines[:5])
    # F02's pictures now show F01's fish: each also looks like every section of the
    # deck that shows the same fish under another name
    margins = calibration.margins(templates.shoal_templates(deck),
                                  frozenset({templates.NO_CARD}))
    assert margins.alike[0][2] < 1e-3  # the copied picture itself
    assert len(lines) == 6 and lines[-1].startswith(f"... and {len(margins.alike) - 5} more")


def test_doctor_names_the_configured_deck_and_faces(deck_dir: Path, faces_dir: Path,
                                                    tmp_path: Path) -> None:
    twin = _twin_deck(deck_dir, tmp_path / "twin")
    good = Setup(Settings(path=tmp_path / "c.toml",
                          vision={"deck": str(deck_dir), "faces": str(faces_dir)}))
    found = list(doctor.check_cards(good))
    assert [f.ok for f in found] == [True, True], found
    bad = Setup(Settings(path=tmp_path / "c.toml", vision={"deck": str(twin)}))
    (finding,) = doctor.check_cards(bad)
    assert not finding.ok and "card F01" in finding.detail and "F02" in finding.detail
    assert "capture-deck" in finding.fix


def test_confidence_splits_between_values_a_photo_cannot_tell_apart() -> None:
    labels = ("a", "b", "c", "a")
    density = (np.log(0.05), 0.3, np.log(1.0), 0.3)
    clear = calibration.posterior(np.array([0.05, 1.0, 1.2, 0.9]), labels, density)
    assert next(iter(clear)) == "a" and clear["a"] > 0.99
    tied = calibration.posterior(np.array([0.05, 0.05, 1.2, 0.9]), labels, density)
    assert abs(tied["a"] - tied["b"]) < 0.01 and tied["a"] + tied["b"] > 0.99
    # two pictures of the same value add up
    both = calibration.posterior(np.array([0.05, 0.05, 1.2, 0.05]), labels, density)
    assert both["a"] > 0.6
    unseen = calibration.posterior(np.array([1.0, 1.1, 1.2, 0.9]), labels, density,
                                   {"object": 0.2})
    assert next(iter(unseen)) == "object"


def test_a_cell_partly_seen_says_that_much_less() -> None:
    """Evidence adds up over a cell's samples: a cell measured on a third of them (the
    rest clipped) weighs each value by the cube root of what a whole one does, so the
    value it is read as is never surer, and a clear lead becomes a doubt."""
    density = (np.log(0.1), 0.5, np.log(0.8), 0.5)
    labels = ("closed", "blank", "object")
    dist = np.array([0.25, 1.2, 0.15])
    whole = calibration.posterior(dist, labels, density)
    third = calibration.posterior(dist, labels, density, seen=1 / 3)
    assert whole["object"] >= calibration.UNSURE > third["object"] > 0.5
    lw = calibration.log_weights(dist, density)
    ratio = np.exp((lw[2] - lw[0]) / 3)
    assert np.isclose(third["object"] / third["closed"], ratio)
