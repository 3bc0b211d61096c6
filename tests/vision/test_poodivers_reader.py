"""The Tokyo Poo Divers reader on synthetic photos of generated faces."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import main
from companion.games.poodivers.layout import card_cells, named, rows_of
from vision import calibration, matching, poo_grid, poo_odds, poodivers, synth
from vision.decks import Faces, load_faces
from vision.errors import VisionError
from vision.mat import MatSpec, load
from vision.synth_tables import Table
from vision.templates import Templates

from .helpers import as_sent, errors, misread, read_grid

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


@pytest.mark.parametrize(("style", "seed", "tier", "layout", "most"), [
    ("grey", 9000, "hard", "cow", 6),
    ("offwhite", 4005, "medium", "square", 0),
])
def test_a_layout_is_not_slid_a_line_off_its_cards(
        style: str, seed: int, tier: str, layout: str, most: int,
        user_table: Callable[[str], Table]) -> None:
    """A layout whose last line of cards is faint, its outlines holding little weight,
    was slid a line off its cards: on the grey mat's hard photo (its bottom lines washed
    out by a veil) onto bare mat, read as blanks, 37 of 68 cards read as their neighbours,
    34 of them sure; on the off-white mat's medium photo (a square laid near the mat's
    top edge) over the mat's edge, off the photo's outlines, where it cost nothing, 43 of
    64, every one sure. The bare mat's places, and those where no card may lie, now count
    against a placement."""
    table = user_table(style)
    scene = table.poodivers(seed, tier, layout)
    reading = read_grid(table, layout, scene.photo)
    laid = {p["cell"]: p["centre_mm"] for p in scene.placements}
    off = np.array([(x + w / 2 - laid[c][0], y + h / 2 - laid[c][1])
                    for c, (x, y, w, h) in reading.boxes_mm.items()])
    assert np.abs(off).max() < min(table.style.card_mm) / 3
    assert len(misread(scene.cells, reading.cells)) <= most


@given(st.lists(st.floats(0.85, 1.0), min_size=6, max_size=6),
       st.floats(0.3, 1.5), st.floats(-0.2, 0.2))
def test_a_colour_fits_its_template_lit_and_veiled_whatever_its_greyness(
        values: list[float], gain: float, veil: float) -> None:
    """A card's colour that is its picture's at a gain and a veil misfits by nothing, and
    one that is not misfits by the fit's residual, however near grey both are (float32
    colours: no cancellation of large sums)."""
    template = np.array([values[:3]], np.float32)
    other = np.array(values[3:], np.float32)
    lit = (gain * template + veil).astype(np.float32)
    faces = Templates(("blank",), np.zeros((1, 3), np.float32), (26.0, 26.0), 2.5,
                      np.zeros(1), template, 0.0)
    assert matching.colour_misfit(lit, faces, other)[0, 0] < 1e-9
    design = np.stack([template[0].astype(np.float64), np.ones(3)], 1)
    coef, *_ = np.linalg.lstsq(design, other.astype(np.float64), rcond=None)
    expected = float(((other - design @ coef) ** 2).sum())
    got = float(matching.colour_misfit(other[None], faces, other)[0, 0])
    assert abs(got - expected) < 1e-9


def _odd_mat(rng: np.random.Generator, kind: int) -> np.ndarray:
    """A mat image the grid search may meet: noise, a plain mat, stray card outlines at
    random, stripes; often smaller than a card."""
    h, w = (int(v) for v in rng.integers(60, 400, 2))
    if kind == 0:
        return rng.random((h, w, 3)).astype(np.float32)
    img = np.full((h, w, 3), float(rng.random()) if kind == 1 else 0.8, np.float32)
    if kind == 2:
        for _ in range(int(rng.integers(1, 12))):
            x, y = (int(v) for v in rng.integers(0, (w, h)))
            cv2.rectangle(img, (x, y), (x + 62, y + 92), (0.2, 0.2, 0.2), 2)
    if kind == 3:
        img[::int(rng.integers(3, 40)), :] = 0.1
    return img


@pytest.mark.parametrize("gap", [0.0, 0.45])
def test_cards_laid_apart_by_any_gap_the_mat_holds_are_read(
        gap: float, faces: Faces, face_images: Images, a3: MatSpec) -> None:
    """The grid's pitch is learned from the photo, up to the widest at which the layout
    still lies on the mat: cards laid touching, or apart by nearly half their size."""
    rows = ("######",) * 4
    s = synth.poodivers_scene(face_images, faces.card_mm, rows, a3, 21,
                              synth.PRESETS["tilt"], gap_mm=gap * faces.card_mm[0])
    reading = poodivers.PooDiversReader(faces, a3, rows).read(s.photo)
    assert reading.cells == s.cells


@pytest.mark.parametrize("spot", [4.0, 16.0])
@pytest.mark.parametrize("off", [(0.5, 0.5), (0.0, 0.5), (0.3, 0.6)])
def test_a_reflections_sharp_edge_does_not_set_the_grid(spot: float,
                                                         off: tuple[float, float]) -> None:
    """A donut of cards at a 28 mm pitch with a lamp's reflection among them: a card-sized
    patch far brighter than the paper (``spot`` times paper white, as the light's flat
    field leaves it), half a pitch off the lattice. Its edge is many times sharper than
    any card's; counted at full weight it set the pitch alone (on Blender set 10's photo
    19, half a millimetre off: the layout slid a column off its cards, 15 cards read
    wrong without a word) or left no grid at all."""
    rng = np.random.default_rng(0)
    rows = tuple(rows_of("donut"))
    img = np.full((297, 420, 3), 0.9, np.float32)
    x0, y0, pitch, card = 60.0, 20.0, 28.0, 26
    for r, line in enumerate(rows):
        for c, mark in enumerate(line):
            if mark == "#":
                x = round(x0 + c * pitch + rng.uniform(-1, 1))
                y = round(y0 + r * pitch + rng.uniform(-1, 1))
                img[y:y + card, x:x + card] = rng.uniform(0.45, 0.8)
    sx, sy = (round(at + (4 + o) * pitch) for at, o in ((x0, off[0]), (y0, off[1])))
    img[sy:sy + card, sx:sx + card] = spot
    grid = poo_grid.find_grid(img, (26.0, 26.0), rows, np.ones(img.shape[:2], bool))
    assert abs(grid.x0 - x0) < 1.5 and abs(grid.y0 - y0) < 1.5
    assert abs(grid.px - pitch) < 0.2 and abs(grid.py - pitch) < 0.2


def test_the_grid_search_refuses_odd_mats_with_a_message() -> None:
    """Whatever the mat image, the grid is found or refused with a VisionError (a mat
    smaller than a card, outlines that lie on no lattice), never another error."""
    rng = np.random.default_rng(0)
    refused = 0
    for k in range(200):
        img = _odd_mat(rng, k % 4)
        try:
            poo_grid.find_grid(img, (62.0, 92.0), ("####",) * 3, np.ones(img.shape[:2], bool))
        except VisionError as err:
            refused += 1
            assert "mat" in str(err)
    assert refused > 150



def test_true_matches_spread_widely_move_the_object_margin_out_never_in(
        faces: Faces, a3: MatSpec) -> None:
    """Where a true match and an object are as likely: a photo whose true matches spread
    more widely than its wrong ones moves the margin towards the objects, never past
    them; alike spreads, or narrower true ones, leave the geometric mean."""
    reader = poodivers.PooDiversReader(faces, a3, ("####",))
    t, margins = reader.templates, reader.margins
    fixed = np.isin(np.array(t.labels), poo_odds.FIXED)
    nearest_object = float(calibration.cross(t)[np.ix_(fixed, ~fixed)].min())
    base = poo_odds.object_margin(t, margins, 0.0)
    assert np.isclose(base, np.sqrt(margins.worn * nearest_object))
    assert np.isclose(poo_odds.object_margin(t, margins, 0.0, (0.3, 0.3)), base)
    assert np.isclose(poo_odds.object_margin(t, margins, 0.0, (0.25, 0.9)), base)
    wide = poo_odds.object_margin(t, margins, 0.0, (0.9, 0.3))
    wider = poo_odds.object_margin(t, margins, 0.0, (3.0, 0.3))
    assert base < wide < wider < nearest_object


@pytest.mark.parametrize("seed", [2, 4, 5])
def test_a_window_s_reflection_of_another_colour_than_the_light_is_read_through(
        seed: int, faces: Faces, face_images: Images, a3: MatSpec) -> None:
    """A broad reflection of cool daylight over part of a layout lit by the room's light:
    the cards under it are brighter than their pictures can be and tinted by a colour
    that is not the light's. Their colour counts that much less, so a sleeper or a blank
    under it is read by its pattern, not taken for an object."""
    rows = rows_of("square")
    s = synth.poodivers_scene(face_images, faces.card_mm, rows, a3, seed,
                              synth.PRESETS["clean"])
    h, w = s.photo.shape[:2]
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    rng = np.random.default_rng(seed)
    cx, cy, sigma = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h, 0.12 * w
    mix = 0.75 * np.exp(-((gx - cx) ** 2 + (gy - cy) ** 2) / (2 * sigma**2))[:, :, None]
    daylight = np.array([250, 225, 190], np.float32)  # BGR: bluer than the room's light
    photo = (s.photo * (1 - mix) + daylight * mix).clip(0, 255).astype(np.uint8)
    assert poodivers.PooDiversReader(faces, a3, rows).read(photo).cells == s.cells


def test_the_noise_floor_is_the_bare_mat_s_own_in_the_gaps_between_cards() -> None:
    """A layout shows the bare mat mostly in the gaps between its cards: the smooth light
    the noise is measured against is the bare mat's alone, so the cards' drawings
    beside every gap do not raise the photo's noise floor (which would damp a faint
    object's drawing into a blank)."""
    rng = np.random.default_rng(3)
    sigma = 0.01
    img = (0.8 + sigma * rng.standard_normal((300, 400, 3))).astype(np.float32)
    bare = np.ones((300, 400), bool)
    for y in range(10, 290, 32):
        for x in range(10, 390, 32):  # cards 30 px wide, 2 px of mat between them
            img[y:y + 30, x:x + 30] = rng.uniform(0.1, 0.9, (1, 1, 3))
            img[y + 8:y + 22, x + 8:x + 22] = rng.uniform(0.1, 0.9, (1, 1, 3))
            bare[y:y + 30, x:x + 30] = False
    noise, colour = matching.floors(img, bare)
    assert 0.8 * sigma < noise < 1.25 * sigma
    assert colour < 0.02


def test_a_pale_card_amid_a_clipped_mat_is_no_noise() -> None:
    """Where the lamp clips the mat around a layout, a pale card of the mat's colour is
    all that shows of "bare mat", and its print is not the photo's noise: only bare mat
    joined to the photo's border counts (here none, so one grey level)."""
    rng = np.random.default_rng(4)
    img = (0.95 + 0.002 * rng.standard_normal((200, 300, 3))).astype(np.float32)
    bare = np.zeros((200, 300), bool)  # the mat: clipped, unknown
    img[60:90, 100:130] = 0.97  # a pale card, of the mat's colour
    img[70:80, 105:125] = rng.uniform(0.2, 0.6, (1, 1, 3))  # its print
    bare[60:90, 100:130] = True
    assert matching.floors(img, bare)[0] == matching.QUANTUM
    bare[:, :10] = True  # a strip of the mat's edge in the light: its noise counts
    assert matching.floors(img, bare)[0] < 0.004


def test_objects_on_the_backs_colour_are_objects_amid_a_clipped_mat(
        user_table: Callable[[str], Table]) -> None:
    """The bright table's easy photo of seed 1003 (the benchmark's seed 1, photo 3): the
    lamp clips most of the white mat, and the pale objects' prints were taken for the
    photo's noise (0.067 paper white, where the camera gives a tenth of it). Every
    pattern was damped under that, and seven objects drawn on the closed back's brown
    (lamps, boots, a wheel, an umbrella: no stripes, no ring) read as closed backs."""
    table = user_table("bright")
    scene = table.poodivers(1003, "easy", "mascot")
    reading = read_grid(table, "mascot", as_sent(scene.photo))
    for cell in ("A9", "C8", "C9", "F1", "F8", "G8", "G9"):
        assert scene.cells[cell] == "object"
        assert reading.cells[cell] == "object", (cell, reading.candidates[cell])


@given(st.lists(st.floats(0.001, 20.0), min_size=8, max_size=8),
       st.lists(st.floats(0.0, 1.0), min_size=2, max_size=2))
def test_every_cards_odds_at_once_are_each_cards_own(distances: list[float],
                                                     seen: list[float]) -> None:
    """:func:`poo_odds.likely` gives every card the odds :func:`calibration.posterior`
    gives it alone."""
    values = (*poo_odds.FIXED, "object")
    nearest = np.array(distances).reshape(2, 4)
    density = (-2.0, 0.5, 0.5, 1.0)
    at_once = poo_odds.likely(nearest, density, np.array(seen))
    for k in range(2):
        alone = calibration.posterior(nearest[k], values, density, seen=seen[k])
        assert np.allclose(at_once[k], [alone[v] for v in values])


def test_a_span_check_with_no_card_seen_says_no_cards_were_found() -> None:
    """When no outline on the lattice stands out from those off it, the layout check
    says no cards were found (a message, never a traceback)."""
    from vision.errors import VisionError

    none = np.zeros(3, bool)
    with pytest.raises(VisionError, match="no cards found on the mat"):
        poo_grid.check_span(np.arange(3), np.arange(3), none, rows_of("square"), (30.0, 30.0))
