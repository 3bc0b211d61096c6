"""The Shoal section lattice from every card's edges (vision.lattice)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import lattice
from vision.mat import PX_PER_MM, MatSpec

from .helpers import Tables, errors, read_as_sent

SECTION = (30.0, 40.0)
MAT = MatSpec("DICT_4X4_50", 30.0, {0: (20.0, 20.0), 1: (400.0, 20.0), 2: (20.0, 277.0),
                                    3: (400.0, 277.0)}, (420.0, 297.0))


def card(rng: np.random.Generator, band: float) -> np.ndarray:
    """A card picture at 1 px/mm: mid-grey water, a dark line of sand ``band`` of the
    way down each section (the same place in every section, as real decks draw it), and
    a few fish anywhere."""
    w, h = round(2 * SECTION[0]), round(2 * SECTION[1])
    out = np.full((h, w), 150.0, np.float32)
    for top in (0, h // 2):
        y = top + round(band * h / 2)
        out[y:y + 3] = 60.0
    for _ in range(4):
        x, y = int(rng.integers(5, w - 15)), int(rng.integers(5, h - 10))
        out[y:y + 6, x:x + 10] = rng.uniform(40, 220)
    return out


def photo(rng: np.random.Generator, cards: list[np.ndarray], origin: tuple[float, float],
          jitter: float) -> np.ndarray:
    """The rectified mat (grey, :data:`PX_PER_MM`): bare paper at 220 with the cards laid
    on the lattice at ``origin`` (mm), each up to ``jitter`` mm off its place."""
    w, h = MAT.size_mm
    out = np.full((round(h * PX_PER_MM), round(w * PX_PER_MM)), 220.0, np.float32)
    for k, picture in enumerate(cards):
        i, j = 3 + k % 5, 1 + k // 5 * 2
        x = origin[0] + i * SECTION[0] + rng.uniform(-jitter, jitter)
        y = origin[1] + j * SECTION[1] + rng.uniform(-jitter, jitter)
        big = np.kron(picture, np.ones((int(PX_PER_MM), int(PX_PER_MM)), np.float32))
        x0, y0 = round(x * PX_PER_MM), round(y * PX_PER_MM)
        out[y0:y0 + big.shape[0], x0:x0 + big.shape[1]] = big
    return out


@pytest.mark.parametrize("band", [0.3, 0.7])
def test_the_lattice_is_where_every_cards_edges_fit_the_decks(band: float) -> None:
    """Ten cards a little askew: their outlines and their print (a line of sand drawn
    darker than any outline, at the same place in every section) fit the deck's edges
    where the lattice lies, within a millimetre and a half, each way."""
    rng = np.random.default_rng(7)
    deck = [card(rng, band) for _ in range(6)]
    step = 1 / lattice.STEP_MM  # the deck's pictures at the resolution edges are summed at
    edges = lattice.deck_edges(np.stack([cv2.resize(c, None, fx=step, fy=step,
                                                    interpolation=cv2.INTER_AREA)
                                         for c in deck]), SECTION)
    for origin in [(11.0, 17.0), (24.0, 3.0)]:
        grey = photo(rng, [deck[k % 6] for k in range(10)], origin, 1.5)
        found = lattice.fit(grey, MAT, SECTION, edges).origin
        for axis in (0, 1):
            assert lattice.off_lattice(np.array(found[axis]), origin[axis],
                                       SECTION[axis]) <= 1.5


def test_off_lattice_measures_both_ways_round_the_section() -> None:
    assert lattice.off_lattice(np.array([1.0, 29.0, 15.0, 61.0]), 0.0, 30.0).tolist() == [
        1.0, 1.0, 15.0, 1.0]


def test_a_whole_card_match_between_cards_does_not_set_the_lattice(user_table: Tables
                                                                   ) -> None:
    """On this bright table's hard photo (a lamp's spot on the shoal, fish cut from
    photographs on textured water) the best whole-card match lies half a section off
    every card; taken as the top card, it put the lattice between the cards and 23 of
    24 cells were read wrong. The place the cards' edges agree on rules it out: read
    exactly."""
    scene, reading = read_as_sent(user_table("bright"), 9000, "hard")
    assert errors(scene.cells, reading.cells) == 0


def test_a_card_that_matches_far_better_than_the_edges_fit_sets_the_lattice(
        user_table: Tables) -> None:
    """On this off-white table's hard photo the mat fills little of a tilted frame (a
    section some 40 px across, blurred): the cards' level edges hardly rise above the
    print's and the mat's, and the lattice they fit lies half a section off the cards
    down. A whole card matches at 0.94 off that lattice, the best on it at 0.50; held to
    the lattice, 22 of 26 cells were read wrong. The match leaves 8 times less of its
    card unexplained than the other does, the lattice's edges hardly more through the
    card than through its own best: the card sets it."""
    scene, reading = read_as_sent(user_table("offwhite"), 3006, "hard")
    assert errors(scene.cells, reading.cells) == 0


def test_the_edges_fit_through_a_card_is_their_best_within_a_hands_placement() -> None:
    """Through a card within a hand's placement of the fit's best shift, the edges fit
    no worse; half a section off, as much worse as they leave unexplained there; a
    section narrower than a bin still has one."""
    across = np.array([0.2, 0.4, 0.8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.8, 0.4, 0.3])  # 2 mm bins
    fit = lattice.Lattice((0.0, 0.0), SECTION, (across, np.full(20, 0.5)))
    assert fit.worse(1.0, 7.0) == pytest.approx(1.0)  # 1 mm off the best
    assert fit.worse(27.0, 7.0) == pytest.approx(1.0)  # 3 mm off, round the section
    assert fit.worse(15.0, 7.0) == pytest.approx(1.0 / 0.2)  # half a section off
    tiny = lattice.Lattice((0.0, 0.0), (2.0, 2.0), (np.array([0.5]), np.array([0.5])))
    assert tiny.worse(0.9, 0.9) == 1.0
