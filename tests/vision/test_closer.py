"""The closer look between two sections (:mod:`vision.closer`) and where the Shoal reader
takes it: a cell whose own match and its card disagree."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision import closer, templates
from vision.decks import load_deck
from vision.images import load
from vision.shoal import moved

from .helpers import Tables, read_as_sent, wrong_cells

MARGIN_MM = 10.0


def _on_mat(image: Path, card_mm: tuple[float, float]) -> np.ndarray:
    """A card image on a white mat, ``MARGIN_MM`` from its top-left, at the closer look's
    resolution (:data:`vision.closer.PX_PER_MM`)."""
    s = closer.PX_PER_MM
    size = (round(card_mm[0] * s), round(card_mm[1] * s))
    card = cv2.resize(load(image), size, interpolation=cv2.INTER_AREA) / np.float32(255)
    m = round(MARGIN_MM * s)
    mat = np.ones((size[1] + 2 * m, size[0] + 2 * m, 3), np.float32)
    mat[m:m + size[1], m:m + size[0]] = card
    return mat


def test_each_section_beats_its_nearest_lookalike_of_another_value(
        user_table: Tables) -> None:
    """The off-white table's deck draws its pairs of clownfish and sardines in the same
    places. For every section of its first twelve cards, photographed straight on at the
    closer look's blur, the closer look prefers it to the section of another value
    nearest it as the reader first compares them (the blurred correlation), whichever
    way round they are asked."""
    deck = load_deck(user_table("offwhite").deck)
    sw, sh = deck.section_mm
    inset = templates.SECTION_INSETS_MM[1]
    sharp_templates = templates.sharp_sections(deck, inset)
    first = templates.shoal_templates(deck, inset)
    labels = np.array(first.labels[1:])
    alike = first.unit[1:] @ first.unit[1:].T
    for n, card in enumerate(list(deck.cards.values())[:12]):
        assert card.image is not None
        sharp = _on_mat(card.image, (2 * sw, 2 * sh))
        known = np.ones(sharp.shape[:2], np.float32)
        for q, (dx, dy) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1))):
            mine = 4 * n + q
            if labels[mine] == "empty":
                continue
            other = np.flatnonzero((labels != labels[mine]) & (labels != "empty"))
            rival = int(other[alike[mine, other].argmax()])
            corner = np.array([MARGIN_MM + dx * sw, MARGIN_MM + dy * sh])
            for which in ([mine, rival], [rival, mine]):
                assert closer.closer_best(sharp, known, corner, np.zeros(2), (sw, sh), inset,
                                          sharp_templates, which) == mine, (card.id, q)


def test_a_clipped_window_is_not_looked_at(user_table: Tables) -> None:
    deck = load_deck(user_table("offwhite").deck)
    sw, sh = deck.section_mm
    inset = templates.SECTION_INSETS_MM[1]
    card = next(iter(deck.cards.values()))
    assert card.image is not None
    sharp = _on_mat(card.image, (2 * sw, 2 * sh))
    known = np.ones(sharp.shape[:2], np.float32)
    at = round((MARGIN_MM + inset + 3) * closer.PX_PER_MM)
    known[at - 1:at + 2, at - 1:at + 2] = 0.0  # a patch 1.5 mm across
    look = templates.sharp_sections(deck, inset)
    corner = np.array([MARGIN_MM, MARGIN_MM])
    assert closer.closer_best(sharp, known, corner, np.zeros(2), (sw, sh), inset, look,
                              [0, 1]) is None
    assert closer.closer_best(sharp, np.ones_like(known), corner, np.zeros(2), (sw, sh),
                              inset, look, [0, 1]) is not None
    # off the photo
    assert closer.closer_best(sharp, np.ones_like(known), np.array([-5.0, 0.0]),
                              np.zeros(2), (sw, sh), inset, look, [0, 1]) is None


def test_the_card_s_section_is_kept_where_the_closer_look_sides_with_it(
        user_table: Tables) -> None:
    """The off-white table's medium photo 2002 under a tungsten cast: the cell 3,0 of a
    card with a clownfish pair matches a tang pair better at the first look (their fish
    lie in the same places, the cast takes their colours), so decisively that the cell
    is asked about. The closer look sees the clownfish: the cell shows the card's
    clownfish pair, still asked about, and the layout is read exactly."""
    _read_exactly_and_asked(user_table, 2002, "3,0", "clown+clown", "tang+tang")


def test_spots_and_stripes_are_told_apart_at_the_photo_s_own_resolution(
        user_table: Tables) -> None:
    """The off-white table's medium photo 1005: the cell 3,1 of a card with a clownfish
    pair matches the deck's sardine pairs better at the first look (the deck draws both
    orange, in the same places: spots against stripes). At 1 px/mm the closer look saw
    them as one blur and sided with the sardines (0.88 against 0.87); at the rectified
    photo's own 2 px/mm it sees the spots. The cell shows the clownfish, still asked
    about, and the layout is read exactly."""
    _read_exactly_and_asked(user_table, 1005, "3,1", "clown+clown", "sardine+sardine")


def _read_exactly_and_asked(user_table: Tables, scene_id: int, cell: str, value: str,
                            rival: str) -> None:
    """The off-white table's medium photo ``scene_id`` is read exactly, ``cell`` (named
    from the shoal's top-left as the truth names it) showing ``value`` and asked about,
    ``rival`` as likely."""
    scene, reading = read_as_sent(user_table("offwhite"), scene_id, "medium")
    bad, shift = wrong_cells(scene.cells, reading.cells, shoal=True)
    assert not bad
    name = {v: k for k, v in moved(reading.cells, *shift).items()}[cell]
    assert reading.cells[name] == value
    assert reading.candidates[name] == {rival: 0.5, value: 0.5}
    assert name in reading.unsure()


def test_a_section_drawn_too_alike_to_another_value_s_is_asked_about_when_they_differ(
        user_table: Tables) -> None:
    """The off-white table's medium photo 7006: the cell 2,2 of a card with a clownfish
    pair is read as a sardine pair, its card too (the deck draws both orange, in the same
    places, a pair `companion doctor` names), so the cell and its card agree, at 1.0: it
    was read wrong without a word. The closer look at the deck's lookalikes sees the
    clownfish, so the cell is asked about, the sardine pair shown and the clownfish pair
    as likely; every other cell is read right."""
    scene, reading = read_as_sent(user_table("offwhite"), 7006, "medium")
    bad, shift = wrong_cells(scene.cells, reading.cells, shoal=True)
    names = {v: k for k, v in moved(reading.cells, *shift).items()}
    assert scene.cells["2,2"] == "clown+clown"
    assert bad == {"2,2"}
    name = names["2,2"]
    assert reading.cells[name] == "sardine+sardine"
    assert reading.candidates[name] == {"sardine+sardine": 0.5, "clown+clown": 0.5}
    assert name in reading.unsure()
