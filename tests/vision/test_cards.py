"""The card lattice (vision.cards): cells a card must cover, and sections settled by
whole cards; and photos whose glare hid or washed out a fish section, read exactly."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.games.shoal.deck import Deck
from vision import cards, lighting, shoal, synth
from vision.decks import load_deck as vision_deck
from vision.mat import PX_PER_MM, MatSpec, detect

LABELS = ("no-card", "a", "b", "c", "d", "e", "f", "g", "h")
"""Two cards: card 0 shows a b / c d, card 1 e f / g h."""


def test_a_glared_cell_is_covered_when_the_only_place_for_a_neighbours_card_is_over_it(
        ) -> None:
    # (0, 0) is read; everything around it but (1, 0) and (1, 1) is bare mat, so its
    # card lies at (0, 0)-(1, 1) and both glared cells are under it
    covered = {(0, 0), (0, 1)}
    glared = [(1, 0), (1, 1), (5, 5)]
    assert cards.hidden_cells(covered, glared, lambda c: c not in covered
                              and c not in glared) == [(1, 0), (1, 1)]


def test_a_glared_cell_is_not_covered_while_the_card_may_lie_elsewhere() -> None:
    covered = {(0, 0), (0, 1)}
    open_left = {(-1, 0), (-1, 1)}  # glared too: the card might lie over these instead
    glared = [(1, 0), (1, 1), *open_left]
    assert cards.hidden_cells(covered, glared,
                              lambda c: c not in covered and c not in glared) == []


def _dist(best: int, near: dict[int, float] | None = None) -> np.ndarray:
    d = np.full(len(LABELS), 1.0)
    d[best] = 0.1
    for t, v in (near or {}).items():
        d[t] = v
    return d


def test_an_unsure_cell_takes_the_section_a_sure_neighbours_card_shows_there() -> None:
    box = (0.0, 0.0, 1.0, 1.0)
    found: cards.Found = {(0, 0): ("a", 0.8, box), (1, 0): ("e", 0.05, box)}
    distances = {(0, 0): _dist(1), (1, 0): _dist(5, {2: 0.11})}
    cards.same_card(found, distances, LABELS)
    assert found[(1, 0)][0] == "b"  # card 0's top right, nearly as close as "e"


def test_an_unsure_cell_keeps_its_reading_when_the_neighbours_section_is_far() -> None:
    box = (0.0, 0.0, 1.0, 1.0)
    found: cards.Found = {(0, 0): ("a", 0.8, box), (1, 0): ("e", 0.05, box)}
    distances = {(0, 0): _dist(1, {5: 0.12}), (1, 0): _dist(5, {2: 0.5})}
    cards.same_card(found, distances, LABELS)
    assert found[(1, 0)][0] == "e"


@pytest.mark.parametrize(("rival", "settled"), [(1.0, "b"), (0.12, "e")])
def test_a_neighbour_that_names_its_card_settles_from_further_off(rival: float,
                                                                 settled: str) -> None:
    """1.4 times the best distance is close enough only when the neighbour's card is
    named: no other card's section comes near its match."""
    box = (0.0, 0.0, 1.0, 1.0)
    found: cards.Found = {(0, 0): ("a", 0.8, box), (1, 0): ("e", 0.05, box)}
    distances = {(0, 0): _dist(1, {5: rival}), (1, 0): _dist(5, {2: 0.14})}
    cards.same_card(found, distances, LABELS)
    assert found[(1, 0)][0] == settled


def test_a_hidden_cell_shows_the_card_two_sure_cells_place_over_it() -> None:
    box = (0.0, 0.0, 1.0, 1.0)
    found: cards.Found = {(0, 0): ("a", 0.8, box), (0, 1): ("c", 0.8, box),
                          (1, 1): ("h", 0.0, box)}
    distances = {(0, 0): _dist(1), (0, 1): _dist(3), (1, 1): _dist(8, {4: 0.18})}
    cards.under_placed(found, distances, LABELS, [(1, 1)])
    assert found[(1, 1)][0] == "d"


@pytest.fixture(scope="module")
def deck(deck_dir: Path) -> Deck:
    return vision_deck(deck_dir)


@pytest.mark.parametrize("seed", [700048, 700109, 700125])
def test_a_glare_spot_over_a_fish_section_does_not_change_the_reading(
        deck: Deck, a3: MatSpec, seed: int) -> None:
    """Table photos whose glare spot hides a fish section (read as missing before the
    card lattice) or washes it out (read as another value or empty)."""
    s = synth.shoal_scene(deck.to_json(), a3, seed, synth.PRESETS["table"])
    _, jpeg = cv2.imencode(".jpg", s.photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
    photo = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    assert photo is not None
    light = lighting.flatten(detect(a3, photo).rectified, a3)
    reading = shoal.ShoalReader(deck, a3).read(photo)
    assert reading.cells == s.cells
    # the glare is seen: clipped over more than a square centimetre, or as a veil on
    # the bare mat or over a card
    veiled = max(reading.veil.values()) > lighting.VEIL
    assert light.glare.sum() > 100 * PX_PER_MM**2 or veiled
