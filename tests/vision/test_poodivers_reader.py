"""The Tokyo Poo Divers reader on synthetic photos of generated faces."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.games.poodivers.layout import card_cells, named, rows_of
from vision import poodivers, synth
from vision.decks import Faces, load_faces
from vision.mat import MatSpec, load
from vision.synth_tables import Table

from .helpers import errors

Images = dict[str, list[np.ndarray]]


@pytest.mark.parametrize("layout", sorted(named()))
def test_clean_photos_of_every_named_layout_are_read_exactly(
        layout: str, faces: Faces, face_images: Images,
        a3: MatSpec) -> None:
    rows = rows_of(layout)
    s = synth.poodivers_scene(face_images, faces.card_mm, rows, a3, 7, synth.PRESETS["clean"])
    reading = poodivers.PooDiversReader(faces, a3, rows).read(s.photo)
    assert list(reading.cells) == [str(c) for c in card_cells(rows)]  # A1… from the top-left
    assert reading.cells == s.cells


def test_object_drawings_missing_from_faces_json_are_objects(
        faces: Faces, face_images: Images, a3: MatSpec) -> None:
    rows = rows_of("square")
    s = synth.poodivers_scene(face_images, faces.card_mm, rows, a3, 15, synth.PRESETS["tilt"],
                              unseen_objects=1.0)
    assert sum(v == "object" for v in s.cells.values()) >= 10
    reading = poodivers.PooDiversReader(faces, a3, rows).read(s.photo)
    assert reading.cells == s.cells


def test_distortions_alone_and_together_stay_above_the_accuracy_bound(
        faces: Faces, face_images: Images, a3: MatSpec) -> None:
    layouts = sorted(named())
    wrong = total = 0
    for i, preset in enumerate(p for p in synth.PRESETS if p != "clean"):
        rows = rows_of(layouts[i % len(layouts)])
        s = synth.poodivers_scene(face_images, faces.card_mm, rows, a3, 50 + i,
                                  synth.PRESETS[preset])
        reading = poodivers.PooDiversReader(faces, a3, rows).read(s.photo)
        wrong += errors(s.cells, reading.cells)
        total += len(s.cells)
    assert wrong / total <= 0.02, f"{wrong} of {total} cells wrong"


def test_cli_with_layout_rows(faces_dir: Path, faces: Faces, face_images: Images, a3: MatSpec,
                              tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = ("##########",) * 6 + ("#########.",)
    s = synth.poodivers_scene(face_images, faces.card_mm, rows, a3, 9, synth.PRESETS["jpeg"])
    photo = tmp_path / "grid.jpg"
    cv2.imwrite(str(photo), s.photo)
    assert main(["vision", "read", "poodivers", str(photo), "--faces", str(faces_dir),
                 "--layout", "/".join(rows), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "poodivers" and out["cells"] == s.cells
    assert main(["vision", "read", "poodivers", str(photo), "--faces", str(faces_dir),
                 "--layout", json.dumps(list(rows)), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cells"] == s.cells


def test_bad_layouts_and_faces_exit_2(faces_dir: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "p.png"
    cv2.imwrite(str(photo), np.full((300, 400, 3), 200, np.uint8))
    assert main(["vision", "read", "poodivers", str(photo), "--faces", str(faces_dir),
                 "--layout", "spiral"]) == 2
    assert "unknown layout 'spiral'" in capsys.readouterr().err
    (tmp_path / "faces.json").write_text(json.dumps({"card_mm": [26, 26],
                                                     "faces": {"closed": ["back.png"]}}))
    assert main(["vision", "read", "poodivers", str(photo), "--faces", str(tmp_path)]) == 2
    assert "needs at least one image of the 'blank' face" in capsys.readouterr().err


def test_a_layout_that_does_not_fit_the_cards_is_refused(
        faces: Faces, face_images: Images, a3: MatSpec) -> None:
    s = synth.poodivers_scene(face_images, faces.card_mm, rows_of("square"), a3, 3)
    with pytest.raises(ValueError, match="does not fit a layout of 11 x 10 cards"):
        poodivers.PooDiversReader(faces, a3, rows_of("mascot")).read(s.photo)


@pytest.mark.parametrize(("style", "light"), [
    ("bright", "clipped"),  # bright white glossy mat, bare paper clipped: no mat colour
    ("bright", "easy"),
    ("cream", "veil"),      # dark low-contrast faces under a veil
    ("grey", "easy"),       # dark faces on a grey mat
])
def test_the_grid_is_found_from_the_cards_whatever_the_mat(
        style: str, light: str, user_table: Callable[[str], Table]) -> None:
    """Every card's box lies where the card was laid (the median over the layout within
    1 mm, the worst well inside its own card), however white or dark the mat is."""
    table = user_table(style)
    rows = rows_of("cow")
    reader = poodivers.PooDiversReader(load_faces(table.faces), load(table.mat), rows)
    for seed in (600, 601):
        scene = table.poodivers(seed, light, "cow")
        reading = reader.read(scene.photo)
        laid = {p["cell"]: p["centre_mm"] for p in scene.placements}
        off = np.array([(x + w / 2 - laid[c][0], y + h / 2 - laid[c][1])
                        for c, (x, y, w, h) in reading.boxes_mm.items()])
        assert set(reading.boxes_mm) == set(laid)
        assert (np.abs(np.median(off, 0)) < 1.0).all(), (style, light, seed)
        assert np.abs(off).max() < min(table.style.card_mm) / 3, (style, light, seed)
