"""Peeling a layered shoal from the top down (vision.peel), and photos whose glare
hid or washed out a section."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.games.shoal.deck import Deck
from vision import lighting, mat_colour, peel, shoal, synth
from vision.decks import load_deck as vision_deck
from vision.errors import VisionError
from vision.mat import PX_PER_MM, MatSpec, detect

from .helpers import Tables, read_as_sent, wrong_cells

CELLS = [(i, j) for j in range(3) for i in range(4)]


def table(shows: dict[tuple[int, int], int], cards: int = 3, true: float = 0.9,
          wrong: float = 0.3) -> np.ndarray:
    """Correlations of CELLS with 4 sections of each card: ``true`` where the cell shows
    that section (cell -> column 4n + q), ``wrong`` everywhere else."""
    out = np.full((len(CELLS), 4 * cards), wrong)
    for cell, column in shows.items():
        out[CELLS.index(cell), column] = true
    return out


def test_a_card_under_another_shows_only_its_uncovered_sections() -> None:
    # card 0 on top at (1, 0); card 1 under it at (0, 0): only its left column shows
    shows = {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3, (0, 0): 4, (0, 1): 6}
    found = peel.peel(CELLS, table(shows), stop=0.6, bare=0.3)
    assert found == shows


def test_a_section_outshone_at_its_cell_puts_the_card_on_top_first() -> None:
    # card 1 at (0, 1) lies under card 0 at (1, 0): at (1, 1) the photo shows card 0's
    # section, which card 1's section there resembles (0.6); card 1's other three match
    # better than anything of card 0 does
    corr = table({(0, 1): 4, (0, 2): 6, (1, 2): 7}, true=0.99)
    for cell, column in {(1, 0): 0, (2, 0): 1, (2, 1): 3}.items():
        corr[CELLS.index(cell), column] = 0.85
    corr[CELLS.index((1, 1)), 2] = 0.9
    corr[CELLS.index((1, 1)), 5] = 0.6
    plain = np.zeros(corr.shape[1], bool)
    values = np.array([f"v{j}" for j in range(corr.shape[1])])
    same = np.zeros(corr.shape[1], int)  # sections all alike: no card is sure above another
    assert peel.peel(CELLS, corr, stop=0.6, bare=0.3, values=same)[(1, 1)] == 5  # card 1 first
    found = peel.peel(CELLS, peel.outshone(corr, 0.6, values, plain), stop=0.6, bare=0.3)
    assert found[(1, 1)] == 2
    assert found == {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3, (0, 1): 4, (0, 2): 6,
                     (1, 2): 7}


def test_a_card_sure_where_the_better_scoring_card_is_not_lies_above_it() -> None:
    # card 2 at (2, 0) on top of card 0 at (1, 0), which shows only (1, 0) and (1, 1);
    # card 1 at (0, 1) shows three sections well, but at (1, 1) the photo shows card 0's
    # section, which card 1's there resembles only a little (0.7: top card 0.9, sure
    # 0.75). Card 1 scores more (its four sections' mean against card 0's two, less
    # FEWER for each hidden), yet card 0 is sure where it overlaps card 1: card 0 is above
    shows = {(2, 0): 8, (3, 0): 9, (2, 1): 10, (3, 1): 11, (1, 0): 0, (1, 1): 2,
             (0, 1): 4, (0, 2): 6, (1, 2): 7}
    corr = table({c: k for c, k in shows.items() if k >= 4}, true=0.99)
    corr[CELLS.index((1, 0)), 0] = corr[CELLS.index((1, 1)), 2] = 0.95
    corr[CELLS.index((1, 1)), 5] = 0.7
    values = np.arange(corr.shape[1])
    assert peel.peel(CELLS, corr, stop=0.6, bare=0.3, values=values) == shows
    # the same sections of one value at the shared cell: which card is above does not
    # show there, and the better scoring card is peeled first
    same = values.copy()
    same[5] = same[2]
    assert peel.peel(CELLS, corr, stop=0.6, bare=0.3, values=same)[(1, 1)] == 5


def test_a_plain_section_that_fish_match_better_is_left_to_the_card_showing_them() -> None:
    # top: card 2 at (1, 0) and card 3 at (0, 2); under them card 1 at (1, 1) shows only
    # its bottom-right fish (column 7) at (2, 2), where card 0 at (2, 2), under card 1,
    # has a plain section (column 0). The fish match (2, 2) better than the plain
    # section's frame does, but card 0 as a whole outscores card 1's lone section (as on
    # a Blender photo)
    cells = [(i, j) for j in range(4) for i in range(4)]
    shows = {(1, 0): 8, (2, 0): 9, (1, 1): 10, (2, 1): 11,
             (0, 2): 12, (1, 2): 13, (0, 3): 14, (1, 3): 15, (3, 2): 1, (2, 3): 2, (3, 3): 3}
    corr = np.full((len(cells), 16), 0.3)
    for cell, column in shows.items():
        corr[cells.index(cell), column] = 0.9
    corr[cells.index((2, 2)), 0] = 0.62
    corr[cells.index((2, 2)), 7] = 0.7
    plain = np.zeros(16, bool)
    plain[0] = True
    assert peel.peel(cells, corr, stop=0.6, bare=0.3)[(2, 2)] == 0  # without: plain
    assert peel.peel(cells, corr, stop=0.6, bare=0.3, plain=plain) == {**shows, (2, 2): 7}
    # fish no better than a card must be (the stop) do not hide a plain section
    corr[cells.index((2, 2)), 7] = 0.6
    assert peel.peel(cells, corr, stop=0.6, bare=0.3, plain=plain)[(2, 2)] == 0


def test_cells_beside_the_shoal_mostly_clipped_are_hidden() -> None:
    # the shoal is (1, 1) and (2, 1); glare clips (0, 0) and (3, 2) beside it, and (3, 0)
    # a little; (0, 2) is clipped too but lies two cells from the shoal
    seen = np.ones(len(CELLS))
    for cell, share in {(0, 0): 0.2, (3, 2): 0.45, (3, 0): 0.8, (1, 1): 0.1}.items():
        seen[CELLS.index(cell)] = share
    cells = [c for c in CELLS if c != (0, 2)] + [(-1, 2)]
    seen = np.append(np.delete(seen, CELLS.index((0, 2))), 0.0)
    assert peel.hidden(cells, seen, {(1, 1), (2, 1)}) == [(0, 0), (3, 2)]
    assert peel.hidden(cells, np.ones(len(cells)), {(1, 1), (2, 1)}) == []
    # a card's place beside the shoal, (2, 2) to (3, 3), less than half seen over its
    # four cells though (2, 2) is seen more than half: its cells beside the shoal are
    # hidden ((2, 3) and (3, 3) lie two cells from it)
    grid = [(i, j) for j in range(4) for i in range(4)]
    clipped = {(2, 2): 0.55, (3, 2): 0.3, (2, 3): 0.6, (3, 3): 0.5}
    seen = np.array([clipped.get(c, 1.0) for c in grid])
    assert peel.hidden(grid, seen, {(1, 1), (2, 1)}) == [(2, 2), (3, 2)]
    seen[grid.index((3, 3))] = 1.0  # the place more than half seen: (2, 2) is not hidden
    assert peel.hidden(grid, seen, {(1, 1), (2, 1)}) == [(3, 2)]


def test_bare_mat_is_left_out_and_the_stop_is_what_ends_the_peel() -> None:
    shows = {(0, 1): 8, (1, 1): 9, (0, 2): 10, (1, 2): 11}
    assert peel.peel(CELLS, table(shows), stop=0.6, bare=0.3) == shows
    assert peel.peel(CELLS, table(shows), stop=0.95, bare=0.3) == {}


def test_cells_read_already_are_explained_and_the_cards_under_them_peeled_on() -> None:
    # card 0 at (1, 0) was read by a first peel; card 1 at (0, 0) lies under it, and its
    # hidden right column matches card 0's sections, not its own: given card 0's cells,
    # it is taken for its left column alone (less FEWER for the two hidden), and card
    # 0's cells keep their reading
    given = {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3}
    corr = table({**given, (0, 0): 4, (0, 1): 6}, true=0.9, wrong=0.3)
    found = peel.peel(CELLS, corr, stop=0.6, bare=0.3, given=given)
    assert found == {**given, (0, 0): 4, (0, 1): 6}
    # without them, a first peel reads both cards the same way; with the cells given
    # as another card's, they are never read again
    other = {c: 8 + q for c, q in zip(given, range(4), strict=True)}
    assert peel.peel(CELLS, corr, stop=0.6, bare=0.3, given=other) == {
        **other, (0, 0): 4, (0, 1): 6}


def test_a_lone_cell_that_matches_weakly_stays_bare() -> None:
    # a fish-like cell off the shoal, weaker than a card must be, is no card
    shows = {(0, 0): 0, (1, 0): 1, (0, 1): 2, (1, 1): 3}
    corr = table(shows)
    corr[CELLS.index((3, 2)), 5] = 0.5
    assert peel.peel(CELLS, corr, stop=0.6, bare=0.3) == shows


def test_a_plain_section_alone_at_the_shoal_edge_is_read_by_its_colour() -> None:
    """Card 1 (at (0, 0)) lies under cards 2 and 0 and shows one plain section: by its
    frame it matches less than a card showing one section must, by its colour a card
    covers it. A cell of a card's colour whose best match has fish (below the stop:
    above, it is read alone), or whose plain match is below the stop, stays bare."""
    shows = {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3,  # card 0, on top
             (0, 1): 8, (0, 2): 10, (1, 2): 11}           # card 2, under it
    corr = table(shows)
    corr[CELLS.index((0, 0)), 4] = 0.65  # card 1's plain top-left section, alone
    corr[CELLS.index((3, 2)), 5] = 0.55  # fish, beside the shoal, below the stop
    corr[CELLS.index((3, 0)), 6] = 0.55  # plain, below the stop
    plain = np.zeros(12, bool)
    plain[[4, 6]] = True
    carded = np.zeros(len(CELLS), bool)
    assert peel.peel(CELLS, corr, 0.6, 0.3, plain, carded) == shows
    carded[[CELLS.index(c) for c in ((0, 0), (3, 2), (3, 0))]] = True
    assert peel.peel(CELLS, corr, 0.6, 0.3, plain, carded) == {**shows, (0, 0): 4}


def test_a_lone_plain_section_of_a_card_colour_needs_only_to_lean_to_the_cards_side(
        ) -> None:
    """Where colour says a card covers a cell, a plain section that is the only thing
    left to explain there is read when its frame matches nearer the stop than the bare
    mat's score (a photographic texture's plain section matches weakly by its frame); one
    nearer the bare mat's score stays bare."""
    shows = {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3,  # card 0, on top
             (0, 1): 8, (0, 2): 10, (1, 2): 11}           # card 2, under it
    plain = np.zeros(12, bool)
    plain[4] = True
    carded = np.zeros(len(CELLS), bool)
    carded[CELLS.index((0, 0))] = True
    corr = table(shows)
    corr[CELLS.index((0, 0)), 4] = 0.5  # below the stop, above its midpoint with bare
    assert peel.peel(CELLS, corr, 0.6, 0.3, plain, carded) == {**shows, (0, 0): 4}
    corr[CELLS.index((0, 0)), 4] = 0.4
    assert peel.peel(CELLS, corr, 0.6, 0.3, plain, carded) == shows


def test_a_card_half_off_the_mat_is_no_card() -> None:
    # the right column of a card left of the lattice (place (-1, 0)) matches the cells
    # beside the mat's edge; its left column is off the mat, so nothing shows it is there
    half_off = {(0, 0): 1, (0, 1): 3}
    assert peel.peel(CELLS, table(half_off, true=0.8), stop=0.6, bare=0.3) == {}
    on_mat = {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3}
    assert peel.peel(CELLS, table(on_mat, true=0.8), stop=0.6, bare=0.3) == on_mat


def test_two_groups_splits_bare_from_cards() -> None:
    split, low = peel.two_groups(np.array([0.2, 0.25, 0.3, 0.22, 0.9, 0.95, 0.85]))
    assert 0.3 < split < 0.85
    assert low == pytest.approx(0.235)


MAT, CARD = (0.8, 0.8, 0.8), (0.5, 0.7, 0.9)
"""A grey mat and a warm card ground (BGR, paper white 1)."""


def test_colour_keeps_the_bare_mat_from_a_section_and_lifts_a_plain_section() -> None:
    places = np.array([(i, 0) for i in range(8)], float)
    # cells 0-4 bare mat, 5 a patterned section, 6 a plain section of the card's
    # colour that correlates with nothing, 7 bare mat that happens to correlate well
    means = np.array([MAT] * 5 + [CARD, CARD, MAT])
    corr = np.array([[0.2, 0.2]] * 5 + [[0.95, 0.3], [0.1, 0.1], [0.3, 0.9]])
    section_means = np.array([CARD, CARD])
    bare_cells = np.array([True] * 5 + [False, False, True])
    sure = np.array([False] * 5 + [True, False, False])
    jitter = means * (1 + 0.002 * np.arange(8))[:, None]
    out, carded = mat_colour.mat_coloured(corr, jitter, jitter, section_means, bare_cells, sure,
                                     bare=0.2, stop=0.6, places=places,
                                     plain=np.array([False, False]))
    assert out[7, 1] == 0.2           # the mat's colour: no section of the card's
    assert out[6].min() >= 0.6        # the card's colour: there, plain as it is
    assert out[5, 0] == 0.95 and (out[:5] == corr[:5]).all()
    assert carded.tolist() == [False] * 5 + [True, True, False]


def test_a_cell_is_told_card_by_its_colour_where_the_lattice_puts_it() -> None:
    """The best match of a bare cell beside a card may lean its window onto the card: its
    colour there is the card's, its colour where the lattice puts it the mat's."""
    places = np.array([(i, 0) for i in range(8)], float)
    means = np.array([MAT] * 5 + [CARD, CARD, MAT]) * (1 + 0.002 * np.arange(8))[:, None]
    leaning = means.copy()
    leaning[7] = CARD  # cell 7, bare, matched best half on the card beside it
    corr = np.array([[0.2, 0.2]] * 5 + [[0.95, 0.3], [0.1, 0.1], [0.3, 0.9]])
    bare_cells = np.array([True] * 5 + [False, False, True])
    sure = np.array([False] * 5 + [True, False, False])
    args = (np.array([CARD, CARD]), bare_cells, sure, 0.2, 0.6, places, np.zeros(2, bool))
    assert mat_colour.mat_coloured(corr, leaning, means, *args)[1][7] == False  # noqa: E712
    assert mat_colour.mat_coloured(corr, means, leaning, *args)[1][7] == True  # noqa: E712


def test_a_pale_plain_section_under_a_warm_light_is_told_card_by_its_colour() -> None:
    """Under a warm light a pale card's plain section lies near the line from a beige
    mat's colour to white, as the mat whitened by glare does: a cell off that line, if
    only a little, and nearer a plain section's colour is a card's; the whitened mat is
    not."""
    light = np.array([0.7, 0.9, 1.1])  # BGR gain of a tungsten lamp
    warm_mat, fish, pale = (0.55, 0.75, 0.9), (0.9, 0.6, 0.3), (0.88, 0.885, 0.785)
    places = np.array([(i, 0) for i in range(8)], float)
    # cells 0-4 bare mat, 5 a sure section with fish, 6 a lone plain section, 7 the
    # mat whitened by glare (mixed with the light's own colour, paper white under it)
    means = np.array([warm_mat] * 5 + [np.array(fish) * light, np.array(pale) * light,
                                       0.5 * np.array(warm_mat) + 0.5 * light])
    corr = np.array([[0.2, 0.2]] * 5 + [[0.95, 0.3], [0.3, 0.7], [0.3, 0.5]])
    bare_cells = np.array([True] * 5 + [False, False, False])
    sure = np.array([False] * 5 + [True, False, False])
    jitter = means * (1 + 0.002 * np.arange(8))[:, None]
    _, carded = mat_colour.mat_coloured(corr, jitter, jitter, np.array([fish, pale]),
                                   bare_cells, sure, bare=0.2, stop=0.6, places=places,
                                   plain=np.array([False, True]))
    assert carded.tolist() == [False] * 5 + [True, True, False]


def test_colour_decides_only_where_the_pattern_cannot() -> None:
    """A sure match with fish stays, whatever the colour of the cells around it that were
    taken for bare mat (a bowed card's weak cells); a sure match with a plain section is
    colour's to decide."""
    # cells 0-4 bare mat; 5 and 6 of the mat's colour; 7-9 the rest of the shoal
    places = np.array([(i, 0) for i in range(10)], float)
    means = np.array([MAT] * 7 + [CARD] * 3)
    corr = np.array([[0.2, 0.2]] * 5 + [[0.95, 0.3], [0.3, 0.95]] + [[0.95, 0.3]] * 3)
    bare_cells = np.array([True] * 5 + [False] * 5)
    sure = np.array([False] * 5 + [True] * 5)
    jitter = means * (1 + 0.002 * np.arange(10))[:, None]
    out, _ = mat_colour.mat_coloured(corr, jitter, jitter, np.array([CARD, CARD]), bare_cells,
                                sure, bare=0.2, stop=0.6, places=places,
                                plain=np.array([False, True]))
    assert out[5, 0] == 0.95          # fish: the pattern says card
    assert out[6, 1] == 0.2           # plain, and of the mat's colour: bare mat


def veiled(shows: dict[tuple[int, int], int], glared: int | list[int]
           ) -> tuple[np.ndarray, tuple[Any, ...]]:
    """The cells' mean colours (the mat's, a card's where ``shows`` lies, ``glared``
    veiled: like no section's colour; each a little apart) and the rest of
    :func:`vision.mat_colour.mat_coloured`'s arguments, the top row's two cells sure."""
    means = np.array([MAT] * len(CELLS))
    means[[CELLS.index(c) for c in shows]] = CARD
    means[glared] = 0.4 * np.array(CARD) + 0.6
    bare_cells = np.array([c not in shows for c in CELLS])
    sure = np.array([c in ((1, 0), (2, 0)) for c in CELLS])
    jitter = means * (1 + 0.002 * np.arange(len(CELLS)))[:, None]
    places = np.array([(i, j) for i, j in CELLS], float)
    return jitter, (np.array([CARD] * 12), bare_cells, sure, 0.2, 0.6, places,
                    np.zeros(12, bool))


def test_glare_on_two_sections_leaves_the_card_to_its_other_two() -> None:
    """Cells of a card's colour that glare left matching nothing count as neither card nor
    mat: the card is read from its two clear sections, the glared two follow from it."""
    shows = {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3}
    corr = table(shows, wrong=0.2)
    glared = [CELLS.index((1, 1)), CELLS.index((2, 1))]
    corr[glared] = 0.2  # under the glare nothing matches, the true section no better
    jitter, args = veiled(shows, glared)
    assert peel.peel(CELLS, corr, stop=0.6, bare=0.2) == {}  # by pattern alone: no card
    assert peel.peel(CELLS, mat_colour.mat_coloured(corr, jitter, jitter, *args)[0], 0.6,
                     0.2) == shows
    # the bare mat whitened by the same glare is still bare mat
    whitened = jitter.copy()
    whitened[glared] = 0.5 * np.array(MAT) + 0.5
    assert peel.peel(CELLS, mat_colour.mat_coloured(corr, whitened, whitened, *args)[0], 0.6,
                     0.2) == {}


def test_a_section_that_matches_alone_is_read_when_the_rest_of_its_card_is_washed_out(
        ) -> None:
    """The lamp's reflection washes out three sections of card 1 at (2, 0): its mean over
    its four sections falls under the stop, but its clear section matches as well as a
    card must, is of a card's colour and touches the shoal: that cell is read; the
    washed-out three are not."""
    shows = {(0, 1): 0, (1, 1): 1, (0, 2): 2, (1, 2): 3}  # card 0 at (0, 1)
    corr = table(shows, wrong=0.2)
    corr[CELLS.index((2, 0)), 4] = 0.9  # card 1's top-left; its other three washed out
    plain = np.zeros(12, bool)
    carded = np.zeros(len(CELLS), bool)
    carded[[CELLS.index(c) for c in (*shows, (2, 0))]] = True  # of a card's colour
    assert peel.peel(CELLS, corr, 0.6, 0.2, plain, carded) == {**shows, (2, 0): 4}
    # of the mat's colour, it is bare paper that matches fish
    carded[CELLS.index((2, 0))] = False
    assert peel.peel(CELLS, corr, 0.6, 0.2, plain, carded) == shows
    # alone, away from every card read, it is not a shoal
    carded[:] = True
    alone = table({}, wrong=0.2)
    alone[CELLS.index((3, 0)), 4] = 0.9
    assert peel.peel(CELLS, alone, 0.6, 0.2, plain, carded) == {}
    # and under the stop it is bare mat
    corr[CELLS.index((2, 0)), 4] = 0.55
    assert peel.peel(CELLS, corr, 0.6, 0.2, plain, carded) == shows


def test_a_cell_a_section_matches_is_not_lifted_for_no_card_by_its_colour() -> None:
    """A cell of neither the mat's colour nor the whitened mat's counts for no card and
    against none (every section lifted to the stop) only when no section matches it as
    a card must: when one does, its pattern says which card lies there, and the others
    keep what they score."""
    shows = {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3}
    corr = table(shows, wrong=0.2)
    glared = CELLS.index((2, 1))
    corr[glared] = 0.2
    corr[glared, 7] = 0.65  # card 1's bottom-right matches, under the veil
    jitter, args = veiled(shows, glared)
    out = mat_colour.mat_coloured(corr, jitter, jitter, *args)[0]
    assert (out[glared] == corr[glared]).all()
    corr[glared, 7] = 0.5  # under the stop: lifted, whichever card it is
    assert mat_colour.mat_coloured(corr, jitter, jitter, *args)[0][glared].min() == 0.6


def test_off_glare_measures_colour_unlike_the_mat_mixed_with_the_light() -> None:
    mat = mat_colour.chroma(np.array([MAT, (0.6, 0.8, 0.9)]))
    light = mat_colour.chroma(np.array([(0.8, 0.9, 1.0)]))[0]
    veiled = mat_colour.chroma(np.array([0.4 * np.array((0.6, 0.8, 0.9)) + 0.6 * np.array(
        (0.8, 0.9, 1.0))]))
    card = mat_colour.chroma(np.array([CARD]))
    assert mat_colour.off_glare(veiled, mat[1:], light)[0] < 0.01
    assert mat_colour.off_glare(card, mat[1:], light)[0] > 0.1
    assert mat_colour.off_glare(mat[:1], mat[:1], light)[0] == 0.0


@pytest.fixture(scope="module")
def deck(deck_dir: Path) -> Deck:
    return vision_deck(deck_dir)


def test_a_top_card_far_from_every_cell_is_refused_with_a_message(deck: Deck,
                                                                  a3: MatSpec) -> None:
    """The best whole card lies in the mat's edge band, two cards' width from every cell
    the lattice keeps: there is no shoal to grow from it."""
    reader = shoal.ShoalReader(deck, a3)
    small = np.zeros((300, 420, 3), np.float32)
    with pytest.raises(VisionError, match="clear of its edges"):
        reader._near_shoal([(6, 6)], small, np.ones(small.shape[:2], np.float32),
                           (0.0, 0.0), (0, 0))


@pytest.mark.parametrize("seed", [700048, 700109, 700125])
def test_a_glare_spot_over_a_section_does_not_change_the_reading(
        deck: Deck, a3: MatSpec, seed: int) -> None:
    """Table photos whose glare spot hides a section or washes it out."""
    s = synth.shoal_scene(deck.to_json(), a3, seed, synth.PRESETS["table"])
    _, jpeg = cv2.imencode(".jpg", s.photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
    photo = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    assert photo is not None
    light = lighting.flatten(detect(a3, photo).rectified, a3)
    reading = shoal.ShoalReader(deck, a3).read(photo)
    # the glare is there: clipped over more than a square centimetre, or as a veil
    veiled = max(reading.veil.values()) > lighting.VEIL
    assert light.glare.sum() > 100 * PX_PER_MM**2 or veiled
    assert reading.cells == s.cells


def test_doubts_are_fish_like_cells_the_peel_left_bare_beside_the_shoal() -> None:
    found = {(1, 0): 0, (2, 0): 1, (1, 1): 2, (2, 1): 3}
    corr = table(found, wrong=0.2)
    plain = np.zeros(corr.shape[1], bool)
    plain[4] = True
    corr[CELLS.index((3, 1)), 5] = 0.5   # beside the card, like a fish section: asked
    corr[CELLS.index((3, 2)), 6] = 0.5   # beside that one: asked too
    corr[CELLS.index((0, 2)), 4] = 0.5   # beside the card, like a plain section: not
    corr[CELLS.index((0, 0)), 5] = 0.25  # beside the card, in the bare mat's group: not
    assert peel.doubts(CELLS, found, corr, 0.3, plain) == [(3, 1), (3, 2)]
    assert peel.doubts(CELLS, {}, corr, 0.3, plain) == []
    # the plain one, and the one in the bare mat's group, with a card's edge between
    # them and a cell not found: the plain one is asked about
    edge = {(0, 2), (0, 0)}.__contains__
    assert peel.doubts(CELLS, found, corr, 0.3, plain, lambda c: False, edge) == [
        (3, 1), (0, 2), (3, 2)]


def test_a_hole_in_the_shoal_is_asked_about() -> None:
    """A cell with a cell of the shoal on each of its four sides (a card the lamp washes
    out, where a player seldom leaves bare mat) is asked about; a cell with the shoal on
    three sides and bare mat on the fourth is not, nor bare mat around the shoal."""
    cells = [(i, j) for j in range(6) for i in range(5)]
    ring = {(1, 1), (2, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3)}
    assert peel.holes(cells, ring) == []  # (2, 2) open below
    assert peel.holes(cells, ring | {(2, 3)}) == [(2, 2)]


def test_cells_apart_from_the_shoal_are_asked_about_not_read() -> None:
    """A shoal is one piece: a cell found apart from the piece that holds the top card
    (a marker's border taken for a plain section) is left to ask about; cells joined to
    it side by side, or through a cell asked about, stay; a lone piece is never all
    taken away, and where the top card was not found the largest piece is the shoal."""
    found = {(0, 0): 0, (1, 0): 1, (0, 1): 2, (1, 1): 3, (3, 1): 4, (5, 0): 5}
    assert peel.apart(found, [], [(0, 0), (1, 0)]) == [(5, 0), (3, 1)]
    assert peel.apart(found, [(2, 1)], [(0, 0)]) == [(5, 0)]
    assert peel.apart(found, [(2, 1)], [(9, 9)]) == [(5, 0)]   # the largest piece
    assert peel.apart(found, [], [(5, 0)]) == [(3, 1)]  # card 0 lies there whole
    assert peel.apart({**found, (1, 1): 2}, [], [(5, 0)]) == [(0, 0), (1, 0), (0, 1),
                                                             (1, 1), (3, 1)]
    assert peel.apart({(5, 0): 5}, [], [(0, 0)]) == []
    assert peel.apart({(0, 0): 0, (1, 0): 1, (2, 1): 3}, [], []) == [(2, 1)]  # nor do corners
    # a piece apart that holds a whole card (card 2's four sections at their places, as
    # beyond a band the lamp washed out) is cards, and so is a section joined to it;
    # three of a card's sections are not
    beyond = {(5, 3): 8, (6, 3): 9, (5, 4): 10, (6, 4): 11, (7, 4): 5}
    assert peel.apart({**found, **beyond}, [], [(0, 0)]) == [(5, 0), (3, 1)]
    assert peel.apart({**found, (5, 3): 8, (6, 3): 9, (5, 4): 10}, [], [(0, 0)]) == [
        (5, 0), (3, 1), (5, 3), (6, 3), (5, 4)]


def test_a_marker_s_border_beside_the_shoal_is_not_read(user_table: Tables) -> None:
    """The project table's easy photo 5007: beside a marker, two cells from the shoal,
    the marker's white border and black edge matched an empty section at 0.92, read
    sure. The shoal is one piece, so such a cell is asked about (:func:`peel.apart`),
    and the sides of a cell whose look reaches a marker show nothing of a card's
    outline (:func:`vision.edges.strength`), so it is not read at all now; the layout
    is read exactly."""
    scene, reading = read_as_sent(user_table("project"), 5007, "easy")
    bad, _ = wrong_cells(scene.cells, reading.cells, shoal=True)
    assert not bad, sorted(bad)
    assert "5,0" not in scene.cells  # and so, with nothing wrong, not read


def test_a_card_a_second_peel_adds_by_plain_sections_alone_is_left_out() -> None:
    """Of the cards a second peel adds (at local contrast), those whose added cells are
    all plain sections go (bare mat amid the shoal shows its neighbours' edges as a
    plain section's frame); one that adds a section with fish stays, its plain ones
    with it, and what was found before stays whatever it shows."""
    plain = np.array([False, True, True, True, False, False, True, True])  # 2 cards
    found = {(0, 0): 1, (5, 5): 2}  # plain sections, found by the first peel
    more = {**found, (2, 2): 3,  # card 0 at (1, 1), its plain bottom-right alone
            (4, 0): 4, (5, 0): 5, (4, 1): 6}  # card 1 at (4, 0): fish and a plain one
    assert peel.with_fish(found, more, plain) == {**found, (4, 0): 4, (5, 0): 5, (4, 1): 6}


def test_a_cells_card_mates_say_which_section_it_shows() -> None:
    """Three cells that clearly show card 1's sections put most of the fourth cell's prior
    on card 1's section there; the rest is even over every section (a card above that the
    peel missed); a cell alone on its card gets an even prior."""
    order = [(0, 0), (1, 0), (0, 1), (1, 1), (3, 0)]
    found = {(0, 0): 4, (1, 0): 5, (0, 1): 6, (1, 1): 7, (3, 0): 9}  # card 1 at (0, 0)
    weights = np.zeros((5, 12))
    weights[[0, 1, 2], [4, 5, 6]] = 8.0  # card 1's sections, clear at three cells
    priors = peel.card_priors(order, found, weights)
    np.testing.assert_allclose(priors.sum(1), 1.0)
    assert priors[3].argmax() == 7 and priors[3, 7] > 0.5
    assert priors[3, 3] < 0.05 and priors[3, 11] < 0.05  # cards 0 and 2 there
    np.testing.assert_allclose(priors[4], 1 / 12)  # alone on card 2
    # the first cell's mates say nothing for one card over another: no card is favoured
    flat = peel.card_priors(order, found, np.zeros((5, 12)))
    np.testing.assert_allclose(flat[0, 0::4], flat[0, 4])
