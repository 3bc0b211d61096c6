"""A card whose print a lamp's reflection hides is weighed by its rim, which does not
reflect the lamp. The Blender set's photo 13 (gloss table): the reflection covers the
compared window of the closed back B5, which looks like none of the faces and is read
as an object without its rim (asked about, 0.35); its rim still shows the back's red,
pale, where the window is far brighter than the rim, and the photo's clear closed backs
and the faces file's closed picture say so."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import calibration, images, poo_rim, templates
from vision.decks import Faces
from vision.mat import PX_PER_MM

from .helpers import blender_grid

SET2 = Path(__file__).parents[2] / "benchmarks" / "blender-seed2"


def test_a_closed_back_under_the_reflection_is_read_by_its_rim() -> None:
    shot, reader, image = blender_grid("photos/13.jpg")
    reading = reader.read(image)
    unsure = set(reading.unsure())
    for cell in ("B5",):
        assert shot["cells"][cell] == "closed"
        assert reading.cells[cell] == "closed", (cell, reading.candidates[cell])
        # the print says object, the rim a closed back: mixed evidence is asked about
        assert cell in unsure, (cell, reading.confidence[cell])
        assert next(iter(reading.candidates[cell])) == "closed"
    wrong = [c for c, v in shot["cells"].items() if reading.cells[c] != v]
    assert not [c for c in wrong if c not in unsure], (wrong, sorted(unsure))


def test_a_closed_backs_rim_outweighs_a_print_the_reflection_hides() -> None:
    """The Blender set's photo 19 (gloss table): D9, a closed back under the lamp's
    reflection, looks like none of the faces; its print leans to an object, its rim lies
    at a closed back's red, as far from every object's rim as the objects' rims lie
    from each other several times over. Read as a closed back, asked about (an object,
    at 0.30, without its rim); so is E9 beside it (0.32 without)."""
    shot, reader, image = blender_grid("photos/19.jpg")
    reading = reader.read(image)
    for cell in ("D9", "E9"):
        assert shot["cells"][cell] == "closed"
        assert reading.cells[cell] == "closed", (cell, reading.candidates[cell])
        assert cell in reading.unsure()


def test_a_rim_under_a_veil_is_its_face() -> None:
    """A rim is any share of its face's rim plus a veil (light added alike to every
    channel), never less light than its share: a pale red is a red under a veil; a
    darker or a differently tinted one is not."""
    red = np.array([[0.2, 0.15, 0.55]])
    veiled = 0.8 * red + 0.3
    assert poo_rim.veil_residual(veiled, red)[0, 0] == pytest.approx(0.0, abs=1e-9)
    # darker than its share leaves: the veil would take light away (b < 0)
    darker = 1.2 * red - 0.1
    assert poo_rim.veil_residual(darker, red)[0, 0] > 0.05
    blue = np.array([[0.55, 0.3, 0.2]]) + 0.3
    assert poo_rim.veil_residual(blue, red)[0, 0] > 0.2


def test_mixed_evidence_is_asked_about() -> None:
    """A card the print calls an object (unlike every face) whose rim lies nearer a
    fixed face than any object's rim, under a reflection that its rim does not show, is
    asked about whichever it is read as; a rim that says no more than its noise leaves
    the print's odds; so does a card under no reflection (a veil over it all) and a card
    not read as an object by being unlike every face."""
    odds = np.tile([0.02, 0.0, 0.01, 0.97], (5, 1))
    odds[1] = [0.45, 0.0, 0.05, 0.50]          # the print torn
    rim = np.tile([0.01, 0.5, 0.4, 0.20], (5, 1))
    rim[2] = [0.100, 0.5, 0.4, 0.101]          # as near an object as a closed back
    alone = np.array([True, True, True, True, False])
    hidden = np.array([0.6, 0.6, 0.6, 0.0, 0.6])
    out, most = poo_rim.weigh(odds, rim, 0.01, 0.0, alone, hidden)
    sure = np.minimum(out, most)
    read = out.argmax(1)
    assert read[0] == 3 and sure[0, 3] < calibration.UNSURE
    assert read[1] == 0 and sure[1, 0] < calibration.UNSURE
    assert read[2] == 3 and sure[2, 3] > calibration.UNSURE
    for k in (3, 4):
        assert out[k] == pytest.approx(odds[k]) and (most[k] == 1).all()


def test_a_rim_at_its_face_outweighs_a_print_half_hidden_unless_objects_rims_vary() -> None:
    """A rim's distance leaves one degree of freedom: its likelihood is Cauchy's, the
    inverse square of the distance with the noise, not its inverse. A card at a closed
    back's rim (one noise off, an object's ten) whose print, 60 % hidden, leans to an
    object (0.80 to 0.15) is a closed back; where the faces file's objects' rims lie as
    far apart as this rim from theirs, an object not in the file could have it: the
    print's word stands. Asked about either way."""
    odds = np.array([[0.15, 0.0, 0.05, 0.80]])
    rim = np.array([[0.01, 0.5, 0.4, 0.10]])
    alone, hidden = np.array([True]), np.array([0.6])
    out, most = poo_rim.weigh(odds, rim, 0.01, 0.0, alone, hidden)
    assert out[0].argmax() == 0 and np.minimum(out, most)[0, 0] < calibration.UNSURE
    out, most = poo_rim.weigh(odds, rim, 0.01, 0.1, alone, hidden)
    assert out[0].argmax() == 3 and np.minimum(out, most)[0, 3] < calibration.UNSURE


def three_pictures() -> tuple[templates.Templates, np.ndarray, tuple[str, ...]]:
    """Pictures of a closed back as bright inside as at its rim, a blank a little
    brighter inside and an object a little darker; their rims; and the faces a rim is
    compared with."""
    pictures = templates.Templates(("closed", "blank", "object"), np.zeros((3, 3)), (26, 26),
                                   2.0, np.zeros(3), np.array([[0.3] * 3, [0.95] * 3,
                                                               [0.6] * 3]), 0.0)
    picture_rims = np.array([[0.3] * 3, [0.9] * 3, [0.7] * 3])
    return pictures, picture_rims, ("closed", "blank", "sleeper", "object")


def test_a_reflection_is_light_the_rim_does_not_show() -> None:
    """A card brighter over its window than at its rim, beyond what its face's pictures
    (and any object's) show there and beyond what the photo's clear cards reach,
    carries a reflection; a veil over rim and window alike carries none."""
    pictures, picture_rims, faces = three_pictures()
    rim = np.array([[0.01, 0.5, np.inf, 0.2]] * 3)
    window = np.array([[0.9] * 3, [0.55] * 3, [0.35] * 3])
    rims = np.array([[0.4] * 3, [0.55] * 3, [0.3] * 3])
    none = np.zeros(3, bool)
    share = poo_rim.reflected(window, rims, rim, pictures, picture_rims, faces, none)
    # (0.9 - 0.4) / 0.9 of its light (the closed picture as bright inside as at its
    # rim), as much of a print's evidence (the square of its share) hidden
    assert share[0] == pytest.approx(1 - (1 - 0.5 / 0.9) ** 2)
    assert share[1] == 0.0
    # a clear card (the third) as bright over its window as its step: nothing beyond it
    clear = np.array([False, False, True])
    floor = (0.35 - 0.3) / 0.35
    assert poo_rim.reflected(window, rims, rim, pictures, picture_rims, faces, clear)[0] \
        == pytest.approx(1 - (1 - (0.5 / 0.9 - floor) / (1 - floor)) ** 2)


def test_the_bar_is_what_clear_cards_show_as_a_rule() -> None:
    """The clear cards' bar is their median: one clear card half under the lamp (its
    print still read) does not excuse the reflection on every other card."""
    pictures, picture_rims, faces = three_pictures()
    rim = np.array([[0.01, 0.5, np.inf, 0.2]] * 4)
    window = np.array([[0.9] * 3, [0.3] * 3, [0.3] * 3, [0.9] * 3])
    rims = np.array([[0.4] * 3, [0.3] * 3, [0.3] * 3, [0.36] * 3])
    clear = np.array([False, True, True, True])
    share = poo_rim.reflected(window, rims, rim, pictures, picture_rims, faces, clear)
    assert share[0] == pytest.approx(1 - (1 - 0.5 / 0.9) ** 2)


def test_a_reflection_two_neighbours_share_is_the_lamps() -> None:
    """Of a card's hidden share, as much as two of its neighbours show too counts as
    the lamp's (a reflection spreads over the cards around its brightest), or as the
    veil the clear cards around it show; a card brighter inside than its rim with one
    such neighbour, or none, and no veil around, keeps its print's word. Cards 0-3 lie
    in a row and 4 two cards below card 0, no neighbour of any."""
    hidden = np.array([0.6, 0.5, 0.4, 0.0, 0.7])
    corners = np.array([[0, 0], [30, 0], [60, 0], [90, 0], [0, 60]], float)
    common = poo_rim.shared(hidden, corners, (28.0, 28.0), np.zeros(5))
    # card 1 has two neighbours (0.6 and 0.4): the second is 0.4; card 0 has one
    assert common == pytest.approx([0.0, 0.4, 0.0, 0.0, 0.0])
    # a veil around card 4 says its reflection is the lamp's, as far as both reach
    veil = np.array([0.0, 0.0, 0.0, 0.0, 0.3])
    assert poo_rim.shared(hidden, corners, (28.0, 28.0), veil)[4] == pytest.approx(0.3)


def test_a_print_the_reflection_around_it_hides_yields_to_its_rim() -> None:
    """A card at a closed back's rim whose print leans to an object (0.80 to 0.15) 60 %
    hidden, where the objects' rims vary as widely as this one lies from theirs: its
    own reflection alone leaves the print's word (an object bright inside its frame);
    the same reflection on the cards around it takes the print's odds to the power 0.4
    and the rim reads a closed back, asked about."""
    odds = np.array([[0.15, 0.0, 0.05, 0.80]])
    rim = np.array([[0.01, 0.5, 0.4, 0.10]])
    alone, hidden = np.array([True]), np.array([0.6])
    out, _ = poo_rim.weigh(odds, rim, 0.01, 0.1, alone, hidden, np.array([0.0]))
    assert out[0].argmax() == 3
    out, most = poo_rim.weigh(odds, rim, 0.01, 0.1, alone, hidden, np.array([0.6]))
    assert out[0].argmax() == 0 and np.minimum(out, most)[0, 0] < calibration.UNSURE


def test_closed_backs_under_a_reflection_spread_over_them_are_closed() -> None:
    """Blender set 2's photo 10 (linen table): the lamp's reflection lies over B5 and C5,
    closed backs, and the cards around them; each print, washed out, is unlike every
    face. Read as closed backs by their rims (objects, at 0.53 and 0.74, when their
    neighbours' share of the reflection is not taken from the print's word)."""
    shot, reader, image = blender_grid("photos/10.jpg", SET2)
    reading = reader.read(image)
    for cell in ("B5", "C5"):
        assert shot["cells"][cell] == "closed"
        assert reading.cells[cell] == "closed", (cell, reading.candidates[cell])
    wrong = [c for c, v in shot["cells"].items() if reading.cells[c] != v]
    assert not [c for c in wrong if c not in reading.unsure()], wrong


def test_the_pictures_rims_are_read_from_the_images_once(
        faces: Faces, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line builds a reader for each photo: the faces file's picture rims
    are cached with its templates, not read from every image again."""
    first = poo_rim.picture_rims(faces, PX_PER_MM)
    loaded: list[object] = []
    monkeypatch.setattr(images, "load", lambda path: loaded.append(path))
    again = poo_rim.picture_rims(faces, PX_PER_MM)
    assert loaded == [] and np.array_equal(first, again)
    assert first.shape == (sum(len(v) for v in faces.faces.values()), 3)
    assert ((first > 0) & (first <= 1)).all()
