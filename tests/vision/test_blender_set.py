"""The physically based photos (Blender, ``benchmarks/render_blender.py``): mats, card
art and faces the readers never saw drawn by ``vision.synth``, photographed with real
thickness, curl, gloss, a lamp, a window and depth of field. Read with a per-cell bound."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.games.poodivers.layout import rows_of
from vision import calibration, mat
from vision.decks import load_deck, load_faces
from vision.images import load
from vision.poodivers import PooDiversReader
from vision.reading import Reading
from vision.shoal import ShoalReader, moved

from .helpers import as_sent, errors, wrong_cells

SET = Path(__file__).with_name("blender")
PER_GAME = 3
"""Photos read per game here (the benchmark reads them all)."""
BOUND = 0.02
"""Share of cells that may be read wrong, missed or made up, over the photos read."""


def _shots(game: str) -> list[dict[str, Any]]:
    truth = json.loads((SET / "truth.json").read_text(encoding="utf-8"))
    shots = [s for s in truth["photos"] if s["game"] == game]
    assert len(shots) >= PER_GAME, "the Blender set is missing photos"
    return shots[::max(1, len(shots) // PER_GAME)][:PER_GAME]


def test_the_set_holds_a_user_s_files_and_its_truth() -> None:
    truth = json.loads((SET / "truth.json").read_text(encoding="utf-8"))
    tables = {s["table"] for s in truth["photos"]}
    for table in tables:
        spec = mat.load(SET / table / "mat.json")
        raw = json.loads((SET / table / "mat.json").read_text(encoding="utf-8"))
        assert spec.size_mm == tuple(raw["size_mm"])
        assert len(load_deck(SET / table / "deck").cards) == 40
        assert load_faces(SET / table / "faces").faces["closed"]
    for shot in truth["photos"]:
        assert (SET / shot["file"]).is_file() and shot["cells"]


@pytest.mark.parametrize("game", ["shoal", "poodivers"])
def test_photos_are_read_within_the_per_cell_bound(game: str) -> None:
    wrong = total = 0
    seen = []
    for shot in _shots(game):
        table = SET / shot["table"]
        spec = mat.load(table / "mat.json")
        reader = (ShoalReader(load_deck(table / "deck"), spec) if game == "shoal" else
                  PooDiversReader(load_faces(table / "faces"), spec,
                                  tuple(rows_of(shot["layout"]))))
        reading = reader.read(load(SET / shot["file"]))
        e = errors(shot["cells"], reading.cells, shoal=game == "shoal")
        seen.append(f"{shot['file']}: {e} of {len(shot['cells'])}")
        wrong += e
        total += len(shot["cells"])
    assert wrong / total <= BOUND, f"{wrong} of {total} cells wrong ({'; '.join(seen)})"


def shoal_photo(file: str) -> tuple[dict[str, Any], ShoalReader]:
    """The set's Shoal photo ``file`` (``"photos/08.jpg"``): its truth, and the reader of
    its table."""
    shot = next(s for s in json.loads((SET / "truth.json").read_text(encoding="utf-8"))
                ["photos"] if s["file"] == file)
    table = SET / shot["table"]
    return shot, ShoalReader(load_deck(table / "deck"), mat.load(table / "mat.json"))


def test_cards_washed_out_by_the_lamp_are_read_from_their_faint_strokes() -> None:
    """Photo 08: the lamp's reflection washes two cards out (whitened and speckled, their
    fish faint strokes a player still sees; hardly a pixel clipped in every channel). By
    each channel's plane their sections correlate with nothing above the stop, and the
    cells were left out (asked about as "no card?"; on this photo, rendered again on 7
    December with the cards resting on each other, four more cells wrong without what
    follows).
    Compared again at local contrast beside the cards read (:mod:`vision.washed`), each
    is read: one of the two cards whole, and the layout but for one cell under the
    reflection beside it (3,4, a puffer, left out), which is asked about."""
    shot, reader = shoal_photo("photos/08.jpg")
    reading = reader.read(load(SET / shot["file"]))
    bad, shift = wrong_cells(shot["cells"], reading.cells, shoal=True)
    names = {v: k for k, v in moved([*reading.cells, *reading.doubtful], *shift).items()}
    assert len(bad) <= 1 and all(names.get(c) in reading.unsure() for c in bad), sorted(bad)
    washed = ("4,3", "4,4", "5,3", "5,4")  # one of the two cards, whole
    assert all(reading.cells.get(names.get(c, "")) == shot["cells"][c] for c in washed)


def test_a_card_the_glare_washes_out_is_asked_about_and_bare_red_paper_hides_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Photo 04: the lamp's reflection washes out one card at the shoal's edge (two of
    its channels mostly clipped, its pattern gone; its outline shows where the
    reflection does not reach). The reader cannot read it, but asks about each of its
    cells (:meth:`vision.edges.Outline.cornered`: they were left out silently, or named hidden
    only). The bare linen paper clips in red over half the mat, but green and blue show
    it: no cell is named hidden and the players are not told to take the photo again
    (25 cells were, with nothing there)."""
    shot, reader = shoal_photo("photos/04.jpg")
    photo = load(SET / shot["file"])
    assert (photo[:, :, 2] >= 254).mean() > 0.3, "the photo's red no longer clips: pick another"
    reading = reader.read(photo)
    _, shift = wrong_cells(shot["cells"], reading.cells, shoal=True)
    named = moved([*reading.cells, *reading.doubtful, *reading.hidden], *shift)
    missed = {k for k in shot["cells"] if k not in {named[c] for c in reading.cells}}
    assert len(missed) >= 3, "the photo no longer hides a card: pick another"
    asked = {named[c] for c in reading.doubtful}
    assert len(missed & asked) >= 3 and missed <= asked, (
        f"missed {sorted(missed)}, asked about {sorted(asked)}")
    unsure = {u["cell"]: u for u in reading.to_json()["unsure"]}
    for cell in reading.doubtful:
        assert "no-card" in [c["value"] for c in unsure[cell]["candidates"]]
    out = reading.to_json()
    assert out["hidden"] == [] and out["retake"] is None
    table = SET / shot["table"]
    assert main(["vision", "read", "shoal", str(SET / shot["file"]), "--deck",
                 str(table / "deck"), "--mat", str(table / "mat.json")]) == 0
    assert "take the photo again" not in capsys.readouterr().out


def test_only_cells_clipped_in_every_channel_are_named_hidden() -> None:
    """Photo 08: the bare linen paper's red (and in places green) clips all around the
    shoal; 28 cells beside it were named hidden, with nothing there. None is now; a
    glare spot clipped in every channel painted over a bare cell beside the shoal is
    named, and the players are told to take the photo again."""
    shot, reader = shoal_photo("photos/08.jpg")
    photo = load(SET / shot["file"])
    reading = reader.read(photo)
    assert reading.hidden == [] and reading.to_json()["retake"] is None
    # a glare spot on the bare cell right of the rightmost cell read: clipped in every
    # channel over the cell, fading out over a cell's width around it
    taken = {*reading.cells, *reading.doubtful}
    right = max((c for c in reading.cells if "{},{}".format(
        int(c.split(",")[0]) + 1, c.split(",")[1]) not in taken),
        key=lambda c: int(c.split(",")[0]))
    x, y = (int(v) for v in right.split(","))
    bx, by, w, h = reading.boxes_mm[right]
    assert reading.view is not None
    (cx, cy), (ex, ey) = reading.view.to_photo(np.array([[bx + 1.5 * w, by + h / 2],
                                                         [bx + 2.5 * w, by + h / 2]]))
    yy, xx = np.mgrid[:photo.shape[0], :photo.shape[1]]
    share = np.clip(1.6 - np.hypot(xx - cx, yy - cy) / np.hypot(ex - cx, ey - cy), 0, 1)
    glared = (photo * (1 - share[:, :, None]) + 300 * share[:, :, None]).clip(0, 255)
    again = reader.read(glared.astype(np.uint8))
    assert f"{x + 1},{y}" in again.hidden and len(again.hidden) <= 6, again.hidden
    assert again.to_json()["retake"].startswith("Glare hides")


def read_exactly(file: str) -> Iterator[tuple[dict[str, Any], Reading, dict[str, str]]]:
    """The set's Shoal photo ``file`` read from disk and as sent, each reading checked to
    be exact: its truth, the reading, and each true cell's name in the reading."""
    shot, reader = shoal_photo(file)
    for photo in (load(SET / file), as_sent(load(SET / file))):
        reading = reader.read(photo)
        bad, shift = wrong_cells(shot["cells"], reading.cells, shoal=True)
        assert not bad, sorted(bad)
        yield shot, reading, {v: k for k, v in moved(reading.cells, *shift).items()}


def test_a_section_whose_card_the_lamp_washes_out_is_read_by_itself() -> None:
    """Photo 05: the lamp's reflection washes out three sections of the card at the
    shoal's bottom edge; its fourth (2,4, an angel pair) matches as well as a card must,
    but the card's mean over all four fell under the stop and the cell was only asked
    about. It is read now (:func:`vision.peel.lone_sections`), and the photo exactly."""
    for shot, reading, names in read_exactly("photos/05.jpg"):
        assert reading.cells[names["2,4"]] == shot["cells"]["2,4"] == "angel+angel"


def test_a_section_under_the_lamp_s_veil_is_ranked_at_local_contrast_too() -> None:
    """Photo 08: the lamp's reflection whitens the cards at the shoal's top (low
    contrast, the colours faded). Cell 3,3, an angel and a puffer, under that veil, is
    compared at local contrast too (:func:`vision.washed.through_veil`) and read right;
    by each channel's plane alone it is read wrong. (Photo 02 showed this until the set
    was rendered again with cards resting on each other, 7 December.)"""
    shot, reader = shoal_photo("photos/08.jpg")
    reading = reader.read(load(SET / shot["file"]))
    bad, shift = wrong_cells(shot["cells"], reading.cells, shoal=True)
    names = {v: k for k, v in moved(reading.cells, *shift).items()}
    assert shot["cells"]["3,3"] == "angel+puffer" and "3,3" not in bad, sorted(bad)
    assert reading.cells[names["3,3"]] == "angel+puffer"


def test_a_cell_its_print_leaves_to_its_card_is_read_at_local_contrast() -> None:
    """Photo 02, as a phone sends it: the lamp's reflection whitens the shoal's
    right-hand cards. Cells 4,1 (an angel and a tang) and 5,1 (a clown pair) are cells
    their print leaves to their card; read again at local contrast
    (:func:`vision.washed.read_by_card`) they show their own sections, and without that
    both are read wrong. The photo is read exactly, and both cells are still asked
    about: the print matches them weakly."""
    shot, reader = shoal_photo("photos/02.jpg")
    reading = reader.read(as_sent(load(SET / shot["file"])))
    bad, shift = wrong_cells(shot["cells"], reading.cells, shoal=True)
    assert not bad, sorted(bad)
    names = {v: k for k, v in moved(reading.cells, *shift).items()}
    assert reading.cells[names["5,1"]] == shot["cells"]["5,1"] == "clown+clown"
    assert reading.cells[names["4,1"]] == shot["cells"]["4,1"] == "angel+tang"
    unsure = set(reading.unsure())
    assert names["4,1"] in unsure and names["5,1"] in unsure


def test_no_score_is_taken_from_a_photo_with_unsure_cells(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Photo 08 leaves cells the reader is unsure of: `companion score shoal` prints no
    score, names them and says what to do (as the camera view asks before it scores)."""
    table = SET / "linen"
    photo = SET / "photos" / "08.jpg"
    reading = ShoalReader(load_deck(table / "deck"), mat.load(table / "mat.json")).read(
        load(photo))
    assert reading.unsure(), "the photo no longer leaves an unsure cell: pick another"
    assert main(["score", "shoal", "--goal", "G1", "--deck", str(table / "deck"), "--mat",
                 str(table / "mat.json"), "--json", str(photo)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert f"the camera is unsure of {len(reading.unsure())} cells ({reading.unsure()[0]}: " in err
    assert "--layout" in err and "Traceback" not in err


SHOAL_NOW = (0.031, 0.005, 0.005)
"""What the Shoal reader of 2026-12-07 does on the whole set read here (7 of 231 cells
wrong, 3.0 %, each listed as unsure), rounded up, with one cell's leeway for those
neither listed as unsure nor named as hidden by glare: the bound it must not fall back
from while the whole set does not meet :data:`BOUND` (the three photos of
:func:`test_photos_are_read_within_the_per_cell_bound` do). The set's Shoal photos were
rendered again on 7 December with each card resting on the cards under it (they had
passed through each other's raised ends); on the photos before, 6 of 231 (17 before
washed-out cards were read at local contrast, 7 before a cell its print leaves to its
card was read at local contrast, 6 before every section was compared at the fine
shifts, 7 before a cell's own value was shown where it and its card disagree
decisively)."""


def test_the_shoal_reader_does_not_fall_back_on_the_whole_set() -> None:
    wrong = silent = unwarned = total = 0
    for shot in json.loads((SET / "truth.json").read_text(encoding="utf-8"))["photos"]:
        if shot["game"] != "shoal":
            continue
        table = SET / shot["table"]
        reader = ShoalReader(load_deck(table / "deck"), mat.load(table / "mat.json"))
        reading = reader.read(load(SET / shot["file"]))
        bad, shift = wrong_cells(shot["cells"], reading.cells, shoal=True)
        asked = set(moved(reading.unsure(), *shift).values())
        hidden = set(moved(reading.hidden, *shift).values())
        wrong, silent = wrong + len(bad), silent + len(bad - asked)
        unwarned += len(bad - asked - hidden)
        total += len(shot["cells"])
    assert wrong / total <= SHOAL_NOW[0], f"{wrong} of {total} cells wrong"
    assert silent / total <= SHOAL_NOW[1], f"{silent} of {total} wrong and not asked about"
    assert unwarned / total <= SHOAL_NOW[2], f"{unwarned} of {total} wrong and not warned of"


def test_poo_divers_cards_washed_out_by_the_lamp_are_asked_about() -> None:
    """Photo 18: the lamp's reflection clips most of two closed backs (E6, F6). Read from
    the third of each that shows, they are none of the faces, but that third is too
    little to be sure of it: they are listed as unsure, so a player is asked, while the
    cards the reflection misses stay sure."""
    shot = next(s for s in json.loads((SET / "truth.json").read_text(encoding="utf-8"))
                ["photos"] if s["file"] == "photos/18.jpg")
    table = SET / shot["table"]
    reader = PooDiversReader(load_faces(table / "faces"), mat.load(table / "mat.json"),
                             tuple(rows_of(shot["layout"])))
    reading = reader.read(load(SET / shot["file"]))
    assert {"E6", "F6"} <= set(reading.unsure()), {c: reading.confidence[c]
                                                   for c in ("E6", "F6")}
    clear = [c for c in ("A1", "B1", "A2", "J9", "K10") if c in reading.cells]
    assert clear and all(reading.confidence[c] >= calibration.UNSURE for c in clear)


def test_poo_divers_cards_the_lamp_brightens_are_never_read_as_objects_silently() -> None:
    """Photos 12 and 18: the lamp's reflection veils sleepers (12: G5, H5, H4, H3) and
    closed backs (18: E7, F7) without clipping them; their pattern washed out, they look
    like none of the faces (an object). A veil alone makes a card look like that, so each
    read wrong is asked about (sent as the benchmark sends them: :func:`as_sent`)."""
    photos = {s["file"]: s for s in json.loads((SET / "truth.json").read_text(
        encoding="utf-8"))["photos"]}
    for name, veiled in (("photos/12.jpg", ("G5", "H5", "H4", "H3")),
                         ("photos/18.jpg", ("E7", "F7"))):
        shot = photos[name]
        table = SET / shot["table"]
        reader = PooDiversReader(load_faces(table / "faces"), mat.load(table / "mat.json"),
                                 tuple(rows_of(shot["layout"])))
        reading = reader.read(as_sent(load(SET / shot["file"])))
        for cell in veiled:
            assert shot["cells"][cell] in ("sleeper", "closed")
            if reading.cells[cell] != shot["cells"][cell]:
                assert cell in reading.unsure(), (name, cell, reading.confidence[cell])


POO_NOW = (0.021, 0.0)
"""What the Tokyo Poo Divers reader of 2026-12-07 does on the whole set, its cards resting
on the mat (in the benchmark, which reads each photo as :func:`as_sent`: 2.1 % of cells
wrong, 14 of 668, none of them read sure): the bound it must not fall back from while
:data:`BOUND` is not yet met."""


def test_the_poo_divers_reader_does_not_fall_back_on_the_whole_set() -> None:
    wrong = silent = total = 0
    for shot in json.loads((SET / "truth.json").read_text(encoding="utf-8"))["photos"]:
        if shot["game"] != "poodivers":
            continue
        table = SET / shot["table"]
        reader = PooDiversReader(load_faces(table / "faces"), mat.load(table / "mat.json"),
                                 tuple(rows_of(shot["layout"])))
        reading = reader.read(as_sent(load(SET / shot["file"])))
        bad, _ = wrong_cells(shot["cells"], reading.cells)
        wrong, silent = wrong + len(bad), silent + len(bad - set(reading.unsure()))
        total += len(shot["cells"])
    assert wrong / total <= POO_NOW[0], f"{wrong} of {total} cells wrong"
    assert silent / total <= POO_NOW[1], f"{silent} of {total} wrong and not asked about"


def test_two_markers_and_the_papers_edges_read_as_four() -> None:
    """Set 1's first Shoal photo with two of its markers painted over in the colour of
    the photo's top rows (the table): the paper's edges fix the mat, and the shoal is
    read as with all four markers (exactly, as it is)."""
    shot = _shots("shoal")[0]
    table = SET / shot["table"]
    spec = mat.load(table / "mat.json")
    reader = ShoalReader(load_deck(table / "deck"), spec)
    photo = load(SET / shot["file"])
    assert reader.read(as_sent(photo)).cells == shot["cells"]
    quads = mat.find_markers(spec, photo)
    assert len(quads) == 4
    paint = tuple(int(v) for v in np.median(photo[:8].reshape(-1, 3), 0))
    for hidden in ([0, 1], [1, 2], [0, 3]):
        covered = photo.copy()
        for k in hidden:
            quad = quads[sorted(quads)[k]]
            grown = quad.mean(0) + 1.4 * (quad - quad.mean(0))
            cv2.fillPoly(covered, [grown.round().astype(np.int32)], paint)
        reading = reader.read(as_sent(covered))
        assert reading.view is not None and len(reading.view.found) == 2
        assert reading.cells == shot["cells"], hidden
