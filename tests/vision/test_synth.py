"""Synthetic scenes: seeded, legal, and true to their ground truth."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.shoal.deck import load_deck
from companion.games.shoal.placement import check
from vision import mat, synth

DECK = load_deck("default")


def test_the_same_seed_gives_the_same_photo_and_truth() -> None:
    spec = mat.standard()
    a = synth.shoal_scene(DECK.to_json(), spec, 5, synth.PRESETS["hard"])
    b = synth.shoal_scene(DECK.to_json(), spec, 5, synth.PRESETS["hard"])
    c = synth.shoal_scene(DECK.to_json(), spec, 6, synth.PRESETS["hard"])
    assert np.array_equal(a.photo, b.photo) and a.cells == b.cells
    assert a.photo.shape == (1200, 1600, 3)
    assert not np.array_equal(a.photo, c.photo)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6))
def test_laid_out_shoals_follow_the_placement_rules(seed: int) -> None:
    order = synth.legal_shoal(DECK.to_json(), random.Random(seed), 10, 6, 8)
    assert len({cid for cid, _, _ in order}) == 10
    visible: dict[tuple[int, int], str] = {}
    for cid, x, y in order:
        check(visible, DECK.cards[cid], (x, y))  # raises if illegal
        visible.update(DECK.cards[cid].at(x, y))
    xs = [x for x, _ in visible]
    ys = [y for _, y in visible]
    assert max(xs) - min(xs) < 6 and max(ys) - min(ys) < 8
    truth = synth.visible_layout(DECK.to_json(), order)
    assert min(x for x, _ in truth) == 0 and min(y for _, y in truth) == 0
    assert sorted(truth.values()) == sorted(visible.values())


def test_cards_lie_where_the_truth_says_and_on_the_mat() -> None:
    spec = mat.standard()
    s = synth.shoal_scene(DECK.to_json(), spec, 9, synth.PRESETS["jitter"])
    left, top, right, bottom = synth._free_box(spec)
    for p in s.placements:
        cx, cy = p["centre_mm"]
        w, h = p["size_mm"]
        assert left - 0.1 <= cx - w / 2 and cx + w / 2 <= right + 0.1
        assert top - 0.1 <= cy - h / 2 and cy + h / 2 <= bottom + 0.1
        assert abs(p["angle_deg"]) <= 3
    # the photo shows a card where the truth puts one: its frame is not the mat's grey
    card, bare = s.to_photo(np.array([s.placements[-1]["centre_mm"], [210, 4]])).round()
    on_card = s.photo[int(card[1]), int(card[0])].astype(int)
    on_mat = s.photo[int(bare[1]), int(bare[0])].astype(int)
    assert abs(on_mat - mat.MAT_GREY).max() < 25
    assert abs(on_card - on_mat).sum() > 40
