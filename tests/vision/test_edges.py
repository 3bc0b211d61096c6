"""A plain section must show its card's outline where it faces bare mat (vision.edges)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from vision import edges
from vision.mat import PX_PER_MM
from vision.shoal import moved

from .helpers import Tables, errors, read_as_sent, wrong_cells

SECTION = (40.0, 30.0)
CELLS = [(i, j) for j in range(6) for i in range(6)]
CORNERS = np.array([(i * SECTION[0], j * SECTION[1]) for i, j in CELLS], float)


def photo(cards: list[tuple[int, int]]) -> np.ndarray:
    """A grey mat (paper white 1) with a light card, framed by a dark line, at each place
    (two sections by two, top-left cell given)."""
    s = PX_PER_MM
    out = np.full((round(200 * s), round(260 * s), 3), 0.5, np.float32)
    for i, j in cards:
        x0, y0 = round(i * SECTION[0] * s), round(j * SECTION[1] * s)
        x1, y1 = x0 + round(2 * SECTION[0] * s), y0 + round(2 * SECTION[1] * s)
        out[y0:y1, x0:x1] = 0.2
        out[y0 + 2:y1 - 2, x0 + 2:x1 - 2] = 0.85
    return out


def test_a_plain_section_without_its_cards_outline_is_bare_mat() -> None:
    image = photo([(1, 1), (1, 3)])
    plain = np.zeros(12, bool)
    plain[[5, 8]] = True
    found = {(1, 1): 0, (2, 1): 1, (1, 2): 2, (2, 2): 3,  # card 0 at (1, 1): fish
             (1, 3): 4, (2, 3): 5, (1, 4): 6, (2, 4): 7,  # card 1 at (1, 3): (2, 3) plain
             (3, 2): 8}  # bare mat beside card 0, taken for card 2's plain top-left
    out = edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined()
    assert out == {c: col for c, col in found.items() if c != (3, 2)}
    # with card 2 there, its outline shows and the plain section stays
    image = photo([(1, 1), (1, 3), (3, 2)])
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined() == found


def test_a_plain_section_facing_the_mats_edge_must_show_its_outline_there() -> None:
    """Bare mat at the top of the cells read (the mat's edge above), between a card and
    the card below it: taken for a plain top-left section, its left side faces a card and
    its top side faces no cell read. The top side must show the card's outline."""
    cells = [c for c in CELLS if c[1] > 0]  # row 0 lies in the mat's edge band
    corners = np.array([(i * SECTION[0], j * SECTION[1]) for i, j in cells], float)
    plain = np.zeros(12, bool)
    plain[8] = True
    found = {(1, 1): 0, (2, 1): 1, (1, 2): 2, (2, 2): 3,  # card 0 at (1, 1): fish
             (3, 2): 4, (4, 2): 5, (3, 3): 6, (4, 3): 7,  # card 1 at (3, 2): fish
             (3, 1): 8}  # bare mat above card 1, taken for card 2's plain top-left
    image = photo([(1, 1), (3, 2)])
    out = edges.Outline(found, cells, corners, SECTION, image, plain).outlined()
    assert out == {c: col for c, col in found.items() if c != (3, 1)}
    image = photo([(1, 1), (3, 2), (3, 1)])  # card 2 there, under card 1: it stays
    assert edges.Outline(found, cells, corners, SECTION, image, plain).outlined() == found


def test_a_plain_section_between_cards_goes_with_its_mate_that_shows_no_outline() -> None:
    """Bare mat taken for a card's two plain top sections: the left one faces bare mat
    and shows no outline there, the right one faces cards above and to the right only,
    so nothing of it can be tested. Its mate speaks for it: both are bare mat. With that
    card there, its outline shows and both stay."""
    plain = np.zeros(16, bool)
    plain[[8, 9]] = True
    found = {(1, 1): 0, (2, 1): 1, (1, 2): 2, (2, 2): 3,  # card 0 at (1, 1): fish
             (3, 1): 4, (4, 1): 5, (3, 2): 6, (4, 2): 7,  # card 1 at (3, 1): fish
             (2, 3): 8, (3, 3): 9,  # card 2 at (2, 3): its plain top sections
             (4, 3): 12, (5, 3): 13, (4, 4): 14, (5, 4): 15}  # card 3 at (4, 3): fish
    image = photo([(1, 1), (3, 1), (4, 3)])
    out = edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined()
    assert out == {c: col for c, col in found.items() if c not in ((2, 3), (3, 3))}
    image = photo([(1, 1), (3, 1), (4, 3), (2, 3)])
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined() == found


def test_a_plain_section_beside_a_marker_must_show_its_outline_elsewhere() -> None:
    """Bare mat beside a card, taken for a card's plain top-right section, with a marker
    (black, in its white quiet zone) just right of it: the marker's border is as sharp a
    step as a card's edge, so the side that reaches it is not looked at, and the top
    side, which shows no edge, says it is bare mat."""
    image = photo([(1, 1)])
    s = PX_PER_MM
    marker = (165.0, 25.0, 205.0, 65.0)  # x0, y0, x1, y1 mm, its quiet zone in
    x0, y0, x1, y1 = (round(v * s) for v in marker)
    image[y0:y1, x0:x1] = 1.0
    image[y0 + round(6 * s):y1 - round(6 * s), x0 + round(6 * s):x1 - round(6 * s)] = 0.0
    plain = np.zeros(12, bool)
    plain[9] = True
    found = {(1, 1): 0, (2, 1): 1, (1, 2): 2, (2, 2): 3,  # card 0 at (1, 1): fish
             (3, 1): 9}  # bare mat beside it, taken for card 2's plain top-right
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined() == found
    out = edges.Outline(found, CELLS, CORNERS, SECTION, image, plain, [marker]).outlined()
    assert out == {c: col for c, col in found.items() if c != (3, 1)}
    assert np.isnan(edges.strength(image, CORNERS[CELLS.index((3, 1))], SECTION, "right",
                                   [marker]))


def test_an_edge_between_two_cells_not_found_is_a_card_s() -> None:
    """Card 1 was not found (a plain card whose colour was taken for the mat's): its
    cells show its outline on sides facing cells not found. Bare mat beside card 0 shows
    card 0's edge only on the side facing it, which is not looked at."""
    image = photo([(1, 1), (3, 1)])
    plain = np.zeros(8, bool)
    found = {(1, 1): 0, (2, 1): 1, (1, 2): 2, (2, 2): 3}  # card 0 at (1, 1) only
    outline = edges.Outline(found, CELLS, CORNERS, SECTION, image, plain)
    assert outline.edged((3, 1)) and outline.edged((4, 2))  # card 1's outline
    assert not outline.edged((0, 1)) and not outline.edged((1, 3))  # beside card 0
    assert not outline.edged((1, 1))  # found


def test_a_plain_section_facing_a_made_up_one_is_tested_once_that_one_is_dropped() -> None:
    """Bare mat below card 0 taken for card 1's plain top-left section at (1, 2), whose
    other cells cards 2 and 4 cover, and the bare mat left of it for card 3's at (0, 2).
    The outer sides of (1, 2) face card 0 and (0, 2): untested while (0, 2) is found.
    (0, 2) shows no outline and is dropped; then (1, 2)'s left side faces bare mat, shows
    none, and it goes too. With card 1 there (under cards 2 and 4), its outline shows
    and it stays."""
    plain = np.zeros(20, bool)
    plain[[4, 12]] = True
    cards = {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3,  # card 0 at (1, 0): fish
             (2, 2): 8, (3, 2): 9, (2, 3): 10, (3, 3): 11,  # card 2 at (2, 2): fish
             (0, 3): 16, (1, 3): 17, (0, 4): 18, (1, 4): 19}  # card 4 at (0, 3): fish
    found = {**cards, (1, 2): 4, (0, 2): 12}
    image = photo([(1, 0), (2, 2), (0, 3)])
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined() == cards
    image = photo([(1, 2), (1, 0), (2, 2), (0, 3)])
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined() == {
        **cards, (1, 2): 4}


def test_a_plain_section_whose_card_shows_nowhere_else_is_bare_mat() -> None:
    """Bare mat between cards A (right of it) and B (below it) taken for card 1's plain
    bottom-right section: both its outer sides face cards, so they say nothing; but its
    card's top-right section would show above it, with that card's outline where it
    meets bare mat, and the bare mat there shows none. With card 1 there (under A and
    B), its outline shows and the section stays."""
    plain = np.zeros(12, bool)
    plain[7] = True
    cards = {(3, 3): 0, (4, 3): 1, (3, 4): 2, (4, 4): 3,  # card A at (3, 3): fish
             (1, 4): 8, (2, 4): 9, (1, 5): 10, (2, 5): 11}  # card B at (1, 4): fish
    found = {**cards, (2, 3): 7}
    image = photo([(3, 3), (1, 4)])
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined() == cards
    image = photo([(1, 2), (3, 3), (1, 4)])
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined() == found


def test_a_plain_section_left_shows_its_outline_on_every_side_it_meets_bare_mat() -> None:
    """Card 1 at (3, 2) lies under cards 2 and 3 and shows its top-left section only;
    the peel left it (a plain section whose colour was taken for the mat's). Its outline
    shows on both sides that meet bare mat; the bare cells beside it show its edge only
    on the side facing it, and none towards the bare mat beyond. Without card 1, its
    place is bare mat like them."""
    plain = np.zeros(16, bool)
    plain[4] = True
    found = {(4, 2): 8, (5, 2): 9, (4, 3): 10, (5, 3): 11,  # card 2 at (4, 2)
             (2, 3): 12, (3, 3): 13, (2, 4): 14, (3, 4): 15,  # card 3 at (2, 3)
             (0, 0): 0, (1, 0): 1, (0, 1): 2, (1, 1): 3}  # card 0 at (0, 0)
    image = photo([(3, 2), (4, 2), (2, 3), (0, 0)])
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).framed(CELLS) == [(3, 2)]
    image = photo([(4, 2), (2, 3), (0, 0)])
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).framed(CELLS) == []


def test_a_step_and_a_line_both_are_edges() -> None:
    image = np.full((100, 100, 3), 0.5, np.float32)
    image[:, 50:] = 0.8  # a step at x = 25 mm
    image[:, 20:22] = 0.1  # a line at x = 10 mm
    flat = edges.strength(image, np.array([30.0, 5.0]), (10.0, 30.0), "right")
    step = edges.strength(image, np.array([15.0, 5.0]), (10.0, 30.0), "right")
    line = edges.strength(image, np.array([0.0, 5.0]), (10.0, 30.0), "right")
    assert flat < 1e-6 < 0.1 < step and line > 0.1


def test_a_side_near_the_mats_edge_is_looked_at_as_far_as_the_mat_reaches() -> None:
    """A bottom side 8 mm above the mat's edge: the look across it (10 mm either way)
    runs off the photo, but the side and the step either side of it lie on the mat,
    clear of its edge band. Bare mat there shows no edge (a plain section taken there is
    dropped); a card's edge shows; the paper's own edge, in the band, is not looked at."""
    s = PX_PER_MM
    image = np.full((round(100 * s), round(100 * s), 3), 0.5, np.float32)
    bare = edges.strength(image, np.array([30.0, 62.0]), (30.0, 30.0), "bottom")
    image[:round(92 * s)] = 0.8  # a card whose bottom edge lies on the side
    card = edges.strength(image, np.array([30.0, 62.0]), (30.0, 30.0), "bottom")
    assert bare < 1e-6 and card > 0.4
    image[round(97 * s):] = 0.1  # the table, beyond the paper's edge
    assert edges.strength(image, np.array([30.0, 62.0]), (30.0, 30.0), "bottom") == card
    # a side on the mat's edge itself, in its band, with no room for the step: not measured
    assert np.isnan(edges.strength(image, np.array([30.0, 70.0]), (30.0, 30.0), "bottom"))


def cornered(found: dict[tuple[int, int], int], cells: list[tuple[int, int]],
             corners: np.ndarray, image: np.ndarray, plain: np.ndarray
             ) -> list[tuple[int, int]]:
    """The cells of ``cells`` that show a card's corner, in their order."""
    outline = edges.Outline(found, cells, corners, SECTION, image, plain)
    return [c for c in cells if outline.cornered(c)]


def test_a_card_washed_out_shows_its_corners_and_bare_mat_beside_a_card_none() -> None:
    """A card whose pattern the lamp's reflection washes out matches no section, but its
    outline shows: each of its four cells shows a corner of it (two sides that meet, both
    facing cells not found). Bare mat beside a card shows that card's edge on the side
    facing it only, and bare mat further out none. Sides facing beyond the cells read
    (the mat's edge band, a marker: their outlines meet in corners too) do not count."""
    image = photo([(0, 1), (3, 1), (0, 3)])
    plain = np.zeros(12, bool)
    found = {(0, 1): 0, (1, 1): 1, (0, 2): 2, (1, 2): 3,  # card 0 at (0, 1)
             (0, 3): 4, (1, 3): 5, (0, 4): 6, (1, 4): 7}  # card 1 at (0, 3)
    # card 2 at (3, 1) is washed out: the peel left its cells bare; the bare cells
    # between it and card 0 show an edge on each side (facing a card), none that meet
    assert cornered(found, CELLS, CORNERS, image, plain) == [(3, 1), (4, 1), (3, 2), (4, 2)]
    # without it, its place is bare mat: no corner anywhere
    assert cornered(found, CELLS, CORNERS, photo([(0, 1), (0, 3)]), plain) == []
    # with the cells right of it beyond those read, its right side does not count
    inner = [c for c in CELLS if c[0] < 5]
    corners = np.array([(i * SECTION[0], j * SECTION[1]) for i, j in inner], float)
    assert cornered(found, inner, corners, image, plain) == [(3, 1), (3, 2)]


def test_an_outline_of_more_cards_in_the_same_photo_measures_no_side_twice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader outlines the cells found again after a second peel: the sides the
    first outline measured are not measured again, and what it says is what a fresh
    outline of those cells says."""
    image = photo([(1, 1), (1, 3)])
    plain = np.zeros(12, bool)
    plain[[5, 8]] = True
    first = {(1, 1): 0, (2, 1): 1, (1, 2): 2, (2, 2): 3}
    more = {**first, (1, 3): 4, (2, 3): 5, (1, 4): 6, (2, 4): 7, (3, 2): 8}
    measured: list[tuple[float, float, str]] = []
    strength = edges.strength

    def counted(rectified: np.ndarray, corner_mm: np.ndarray, size_mm: tuple[float, float],
                side: str, markers: Sequence[tuple[float, float, float, float]] = ()
                ) -> float:
        measured.append((float(corner_mm[0]), float(corner_mm[1]), side))
        return strength(rectified, corner_mm, size_mm, side, markers)

    monkeypatch.setattr(edges, "strength", counted)
    outline = edges.Outline(first, CELLS, CORNERS, SECTION, image, plain)
    outline.outlined()
    again = outline.again(more)
    assert again.outlined() == {c: col for c, col in more.items() if c != (3, 2)}
    assert len(measured) == len(set(measured))  # each side once, over both outlines
    fresh = edges.Outline(more, CELLS, CORNERS, SECTION, image, plain)
    assert fresh.edge == again.edge
    assert fresh.outlined() == again.outlined()


@pytest.mark.parametrize("side", list(edges.SIDES))
def test_a_side_s_sharpness_is_the_largest_step_of_its_mean_colour_along_it(side: str) -> None:
    """Each side measured as its definition says: the colours averaged along the side,
    at every place across it, the largest difference 1.5 mm apart (to the bit)."""
    image = np.random.default_rng(3).random((300, 400, 3), dtype=np.float32)
    corner, size, s = np.array([50.0, 40.0]), (40.0, 30.0), PX_PER_MM
    turned = side in ("left", "right")
    (x0, y0), (w, h) = (corner[::-1], size[::-1]) if turned else (corner, size)
    at = y0 if side in ("top", "left") else y0 + h
    lo, hi = round((x0 + 0.2 * w) * s), round((x0 + 0.8 * w) * s)
    ya, yb = round((at - h / 3) * s), round((at + h / 3) * s)
    view = image.transpose(1, 0, 2) if turned else image
    profile = view[ya:yb, lo:hi].mean(1)
    d = round(edges.STEP_MM * s)
    step = profile[2 * d:] - profile[:-2 * d]
    assert edges.strength(image, corner, size, side) == float(np.sqrt((step * step).sum(-1)).max())


def test_a_card_whose_outline_shows_nowhere_it_faces_bare_mat_is_not_there() -> None:
    """Bare mat beside a card's edge taken for a card's plain sections brings the rest of
    that card with it, and of more such cards, whose sections with fish face bare mat
    with no outline there: more of them than the true card's. They are not read, however
    many of them there are, while the true card, whose outline shows, is."""
    image = photo([(3, 1)])
    image += np.random.default_rng(0).normal(0.0, 1 / 255, image.shape).astype(np.float32)
    plain = np.zeros(12, bool)
    plain[[5, 7]] = True
    true = {(3, 1): 0, (4, 1): 1, (3, 2): 2, (4, 2): 3}  # card 0 at (3, 1): fish
    found = {**true,
             (1, 1): 4, (2, 1): 5, (1, 2): 6, (2, 2): 7,  # card 1: its plain right half
             (1, 3): 8, (2, 3): 9, (1, 4): 10, (2, 4): 11}  # at card 0's edge; card 2
    assert edges.Outline(found, CELLS, CORNERS, SECTION, image, plain).outlined() == true


def test_bare_mat_near_the_mats_edge_is_no_plain_section(user_table: Tables) -> None:
    """The bright table's medium photo of seed 4006 (the benchmark's seed 4, photo 6): the
    bare cell below the shoal's corner, in a card's shadow and 11 mm from the mat's edge,
    matched a plain section at 0.67 (its window leaning onto the card beside it) and was
    read as one, sure: its only outer side facing bare mat ran off the photo and was not
    looked at. Looked at as far as the mat reaches (short of its edge band), it shows no
    edge, and the photo is read exactly."""
    scene, reading = read_as_sent(user_table("bright"), 4006, "medium")
    assert errors(scene.cells, reading.cells, shoal=True) == 0, reading.cells


def test_a_lone_plain_section_between_cards_is_not_read(user_table: Tables) -> None:
    """The grey table's medium photo of seed 5004 (the benchmark's seed 5, photo 4): bare
    mat beside the shoal's lower left was read as a card's plain top-right section, sure;
    its sides face cards only. The card's plain bottom-right section, below it on bare
    mat, shows no outline and was dropped; it speaks for both now, and the photo is read
    exactly."""
    scene, reading = read_as_sent(user_table("grey"), 5004, "medium")
    assert errors(scene.cells, reading.cells, shoal=True) == 0, reading.cells


def test_bare_mat_beside_a_marker_is_no_plain_section(user_table: Tables) -> None:
    """The grey table's hard photo of seed 2006 (the benchmark's seed 2, photo 6): bare
    mat beside the shoal's corner, near a marker, was read as a card's plain section,
    sure: the only outer side of it that showed an edge was the one whose look reached
    the marker's quiet zone. That side is not looked at now."""
    scene, reading = read_as_sent(user_table("grey"), 2006, "hard")
    bad, _ = wrong_cells(scene.cells, reading.cells, shoal=True)
    assert "4,6" not in scene.cells and "4,6" not in bad, sorted(bad)


def test_an_empty_section_whose_colour_was_taken_for_the_mat_s_is_read(
        user_table: Tables) -> None:
    """The grey table's hard photo of seed 4007 (the benchmark's seed 4, photo 7): an
    empty section at the shoal's edge matched the empty section at 0.77, above the
    split, but its colour was taken for the mat's, and it was left out without a word;
    then asked about, with the bare cell beside it, since the edge between them is a
    card's outline. Its outline shows on the one side it meets bare mat, and the bare
    cell shows no edge towards the bare mat beyond: it is read, the bare cell is not
    asked about, and the photo is read exactly."""
    scene, reading = read_as_sent(user_table("grey"), 4007, "hard")
    bad, shift = wrong_cells(scene.cells, reading.cells, shoal=True)
    assert not bad and not reading.doubtful, (sorted(bad), reading.doubtful)
    names = {v: k for k, v in moved(reading.cells, *shift).items()}
    assert scene.cells["3,3"] == "empty" and reading.cells[names["3,3"]] == "empty"


def test_a_bare_cell_s_box_leaning_on_a_card_s_edge_frames_nothing(user_table: Tables) -> None:
    """The bright table's hard photo of seed 1001 (the benchmark's seed 1, photo 1): a
    bare cell beside the shoal matched a plain section with its box shifted onto a card's
    edge, and measured 0.18 on its top side where the bare cell above, on its own box,
    measures 0.05. Each side is taken as the cells on both sides of it see it: it is not
    framed, and the photo is read exactly."""
    scene, reading = read_as_sent(user_table("bright"), 1001, "hard")
    assert errors(scene.cells, reading.cells, shoal=True) == 0, reading.cells
