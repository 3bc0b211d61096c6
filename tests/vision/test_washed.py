"""Sections under a lamp's reflection compared at local contrast (:mod:`vision.washed`,
:func:`vision.matching.local_contrast`)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import correlation, matching, templates, washed
from vision.decks import load_deck
from vision.images import load
from vision.shoal import moved

from .helpers import Tables, read_as_sent, wrong_cells

DECK = Path(__file__).with_name("blender") / "gloss" / "deck"


def _veiled(amount: float) -> tuple[np.ndarray, np.ndarray]:
    """The first card of the Blender set's glossy deck on a mat (1 px/mm, blurred as
    :func:`vision.matching.prepare` leaves a photo), with a lamp's reflection over its
    top-left section: the print's share falls to ``1 - amount`` at the reflection's
    middle and the rest is the light's white, so the veil is no plane and it takes the
    print's contrast with it. Also the section's top-left corner (mm)."""
    deck = load_deck(DECK)
    sw, sh = deck.section_mm
    card = next(iter(deck.cards.values()))
    assert card.image is not None
    size = (round(2 * sw), round(2 * sh))
    print_ = cv2.resize(load(card.image), size, interpolation=cv2.INTER_AREA) / np.float32(255)
    y, x = np.mgrid[0:size[1], 0:size[0]].astype(np.float32)
    share = 1 - amount * np.exp(-((x - 0.3 * size[0]) ** 2 + (y - 0.35 * size[1]) ** 2)
                                / (2 * 14.0 ** 2))
    photo = np.full((200, 200, 3), 0.8, np.float32)
    photo[50:50 + size[1], 50:50 + size[0]] = print_ * share[:, :, None] + 1 - share[:, :, None]
    return cv2.GaussianBlur(photo, (0, 0), matching.BLUR_MM), np.array([[50.0, 50.0]])


@pytest.mark.parametrize("amount", [0.7, 0.8])
def test_a_section_under_a_reflection_still_matches_its_own_at_local_contrast(
        amount: float) -> None:
    """With each channel's plane removed, the reflection's falloff is left and the
    section falls behind others (0.80 at 0.8 and third); at local contrast it still
    correlates 0.99 with itself, first of the deck's 160 sections."""
    deck = load_deck(DECK)
    small, corner = _veiled(amount)
    known = np.ones(small.shape[:2], np.float32)
    plain, _ = correlation.correlations(small, known, corner, templates.shoal_templates(deck))
    local, _ = correlation.correlations(matching.local_contrast(small), known, corner,
                                     templates.shoal_templates(deck, contrast=True))
    assert local[0, 1] > 0.95 and local[0, 1] == local[0].max()
    assert plain[0, 1] < 0.9 and plain[0, 1] < plain[0].max()


def test_local_contrast_is_blind_to_gain_offset_and_a_smooth_veil() -> None:
    small, _ = _veiled(0.0)
    light = np.linspace(0.7, 1.3, small.shape[1], dtype=np.float32)[None, :, None]
    again = matching.local_contrast(small * 0.6 + 0.3 * light)
    base = matching.local_contrast(small)
    inner = (slice(60, 110), slice(60, 120))  # the card, clear of the mat's edge
    assert np.corrcoef(again[inner].ravel(), base[inner].ravel())[0, 1] > 0.99
    assert abs(float(np.sqrt((base[inner] ** 2).mean())) - 1) < 0.3  # unit contrast


def test_contrast_templates_are_cached_apart_from_the_print_s(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path))
    deck = load_deck(DECK)
    plain = templates.shoal_templates(deck)
    local = templates.shoal_templates(deck, contrast=True)
    assert not np.allclose(plain.features, local.features)
    np.testing.assert_array_equal(plain.means, local.means)  # the print's colours
    again = templates.shoal_templates(deck, contrast=True)
    assert again.cached and np.array_equal(again.features, local.features)


def _card(amount: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The veiled card of :func:`_veiled` (its first section veiled), each of its four
    sections' corner, where each matches best, and the print's correlations (4 x N)."""
    deck = load_deck(DECK)
    sw, sh = deck.section_mm
    small, corner = _veiled(amount)
    corners = corner[0] + np.array([(0, 0), (sw, 0), (0, sh), (sw, sh)])
    ncc, shift = correlation.correlations(small, np.ones(small.shape[:2], np.float32), corners,
                                       templates.shoal_templates(deck))
    return small, corners, shift, ncc[:, 1:].astype(np.float64)


@pytest.mark.parametrize("amount", [0.7, 0.8])
def test_a_reflection_is_told_from_shade_by_the_print_s_share_of_the_light(
        amount: float) -> None:
    """The section under the reflection is veiled by more than half (the print explains
    less than half the light it explains on the clear sections); the clear ones are not,
    and shade (a dimmer light over all) changes nothing."""
    deck = load_deck(DECK)
    plain = templates.shoal_templates(deck)
    small, corners, shift, sections = _card(amount)
    clear = np.array([False, True, True, True])
    veil = washed.veiled(small, corners + shift, 1 + sections.argmax(1), plain, clear)
    assert veil[0] > 0.5 and (veil[1:] < 0.1).all(), veil
    shaded = washed.veiled(small * 0.6, corners + shift, 1 + sections.argmax(1), plain, clear)
    np.testing.assert_allclose(shaded, veil, atol=0.02)
    small, corners, shift, sections = _card(0.0)
    assert (washed.veiled(small * 0.6, corners + shift, 1 + sections.argmax(1), plain,
                          clear) < 0.05).all()


@pytest.mark.parametrize("amount", [0.7, 0.8])
def test_a_veiled_section_is_ranked_at_local_contrast_too(amount: float) -> None:
    """The print ranks another section first at the veiled one (the reflection's falloff
    is what it compares); weighed with local contrast by its veil, its own section ranks
    first, at the print's best score (whether a card lies there stays the print's
    word). The clear sections, sure matches, keep the print's correlations."""
    deck = load_deck(DECK)
    small, corners, shift, sections = _card(amount)
    assert sections[0].argmax() != 0
    out = washed.through_veil(small, corners, shift, sections, -1.0, 0.95,
                              templates.shoal_templates(deck),
                              templates.shoal_templates(deck, contrast=True))
    assert out[0].argmax() == 0 and out[0].max() == pytest.approx(sections[0].max())
    clear = sections.max(1) > 0.95
    assert clear.sum() >= 2
    np.testing.assert_array_equal(out[clear], sections[clear])


@pytest.mark.parametrize("amount", [0.7, 0.8])
def test_a_cell_read_by_its_card_alone_is_read_again_at_local_contrast(amount: float) -> None:
    """The veiled section matches nothing better than the bare mat does (its print's best
    under the split), and the peel read it as another card's fish: at local contrast its
    own section matches as a card must, and it is read so. A cell whose section there is
    plain (its frame is all it shows) is not, nor bare mat beside the card (nothing
    matches it as a card must), nor one whose print matches above the split, nor one
    read as the value local contrast finds."""
    deck = load_deck(DECK)
    sw, sh = deck.section_mm
    small, corners, _, _ = _card(amount)
    grain = np.random.default_rng(1).normal(0, 0.02, small.shape).astype(np.float32)
    small = small + cv2.GaussianBlur(grain, (0, 0), matching.BLUR_MM)  # the paper's
    ring = [(i, j) for i in (-1, 0, 1, 2) for j in (-1, 0, 1, 2)
            if not (0 <= i <= 1 and 0 <= j <= 1)]  # bare mat around the card
    cells = [(0, 0), (1, 0), (0, 1), (1, 1), *ring]
    at = corners[0] + np.array([(i * sw, j * sh) for i, j in cells])
    contrast = templates.shoal_templates(deck, contrast=True)
    labels = contrast.labels[1:]
    plain = np.array([v == "empty" for v in labels])
    assert not plain[0] and plain[2]  # the card's first section has fish, its third none
    fish = next(j for j, v in enumerate(labels) if v not in ("empty", labels[0], labels[2]))
    found = {(0, 0): fish, (1, 0): 1, (0, 1): fish, (1, 1): 3, (-1, 0): fish}
    best = np.array([0.3, 0.99, 0.3, 0.99] + [0.1] * len(ring))  # (-1, 0) is bare mat
    top = washed.top_at_contrast(small, at[[1, 3]], contrast)
    again = washed.read_by_card(found, cells, small, at, best, 0.5, top, plain, contrast)
    assert list(again) == [(0, 0)] and again[(0, 0)].argmax() == 0
    assert not washed.read_by_card(found, cells, small, at, best, 0.2, top, plain, contrast)
    assert not washed.read_by_card({**found, (0, 0): 0}, cells, small, at, best, 0.5, top,
                                   plain, contrast)


@pytest.mark.parametrize(("seed", "cell"), [(1003, "4,6"), (1006, "3,0")])
def test_a_clownfish_under_a_glare_spot_is_read_with_nothing_asked_about(
        user_table: Tables, seed: int, cell: str) -> None:
    """The project table's hard photos 1003 and 1006: a glare spot (not clipped) over a
    clownfish at the shoal's edge. Its print matched the plain section's frame best,
    under the cards' group, and no corner showed, so the first peel left nothing to ask
    about and the cell was never compared at local contrast, where it matches its
    clownfish at 0.9: left out, not asked about. Now the cells beside the shoal are
    compared at local contrast in every photo."""
    scene, reading = read_as_sent(user_table("project"), seed, "hard")
    assert scene.cells[cell] == "clown"
    bad, _ = wrong_cells(scene.cells, reading.cells, shoal=True)
    assert not bad, sorted(bad)


def test_bare_mat_amid_the_shoal_is_asked_about_not_read_at_local_contrast(
        user_table: Tables) -> None:
    """The off-white table's easy photo 5003: a hole in the shoal, bare mat with cards on
    its four sides. At local contrast it matches a plain section (its neighbours'
    edges make a frame); with nothing else to ask about, a card is added there only by
    its fish's strokes (:func:`vision.peel.with_fish`), so the hole is asked about,
    not read as an empty section."""
    scene, reading = read_as_sent(user_table("offwhite"), 5003, "easy")
    bad, shift = wrong_cells(scene.cells, reading.cells, shoal=True)
    assert not bad, sorted(bad)
    names = {v: k for k, v in moved([*reading.cells, *reading.doubtful], *shift).items()}
    assert "2,2" not in scene.cells and names["2,2"] in reading.doubtful
