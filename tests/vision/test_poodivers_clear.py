"""A clear card is as sure as the clear cards of its photo say, not as the veiled ones do.
The Blender set's photo 15 (gloss table): the lamp's reflection washes out row 8, whose
cards lie far from their pictures; measured on the whole photo's true matches, which
spread as widely as that, clear objects elsewhere are asked about (0.85-0.90), their
own distance nearly as likely a miss as a true match."""

from __future__ import annotations

import numpy as np
import pytest

from vision import calibration, poo_odds

from .helpers import blender_grid


def test_clear_cards_beside_a_washed_out_row_are_not_asked_about() -> None:
    shot, reader, photo = blender_grid("photos/15.jpg")
    reading = reader.read(photo)
    unsure = set(reading.unsure())
    # clear objects away from the reflection (0.85-0.90 on the whole photo's matches)
    clear = ("A1", "C1", "H3", "G5")
    for cell in clear:
        assert reading.cells[cell] == shot["cells"][cell], (cell, reading.candidates[cell])
    assert not unsure & set(clear), sorted(unsure & set(clear))
    # the washed-out row is still asked about, right or wrong
    wrong = [c for c, v in shot["cells"].items() if reading.cells[c] != v]
    assert wrong and not [c for c in wrong if c not in unsure], (wrong, sorted(unsure))
    assert len(unsure) <= 10, len(unsure)  # 12 of 64 on the whole photo's matches


def test_the_clearer_half_has_its_own_true_matches() -> None:
    """The clearer half of the cards (print's share times the share seen) is measured on
    its own true matches (not on cards unlike every face); the rest keep the photo's,
    spread as widely as their own if wider."""
    rng = np.random.default_rng(3)
    clear = np.concatenate([np.ones(32), rng.uniform(0.4, 0.8, 32)])
    best = np.concatenate([0.1 * np.exp(rng.normal(0, 0.1, 32)),
                           0.1 * np.exp(rng.normal(1.0, 0.8, 32))])
    alone = np.zeros(64, bool)
    alone[:4] = True
    best[:4] = 2.0  # objects unlike every face: no true match of a picture
    whole = calibration.photo_density(np.stack([best, best * 10], 1), 0.01)
    graded = poo_odds.graded(best, clear, alone, whole, 0.01)
    assert graded[:32, 0] == pytest.approx(np.log(0.1), abs=0.1)
    assert graded[:32, 1] == pytest.approx(calibration.SPREAD_MIN)
    assert whole[1] > 0.3  # the photo's, widened by the veiled half
    # the veiled half: the photo's median, spread as widely as its own cards are
    own = calibration.true_lognormal(best[32:], 0.01)[1]
    assert own > whole[1]
    assert graded[32:, 0] == pytest.approx(whole[0])
    assert graded[32:, 1] == pytest.approx(own)
    assert graded[32:, 2:] == pytest.approx(np.tile(np.asarray(whole[2:]), (32, 1)))
    # never narrower than the photo's (its most washed-out cards are read as objects)
    tight = np.concatenate([best[:32], 0.5 * np.exp(rng.normal(0, 0.01, 32))])
    whole = calibration.photo_density(np.stack([tight, tight * 10], 1), 0.01)
    graded = poo_odds.graded(tight, clear, alone, whole, 0.01)
    assert graded[32:] == pytest.approx(np.tile(np.asarray(whole), (32, 1)))
    # a photo too small to say: the photo's for every card
    assert poo_odds.graded(best[:6], clear[:6], alone[:6], whole, 0.01) == pytest.approx(
        np.tile(np.asarray(whole), (6, 1)))


def test_a_density_per_card_weighs_each_card_by_its_own() -> None:
    dist = np.array([[0.1, 0.5], [0.1, 0.5]])
    tight = (np.log(0.1), 0.25, np.log(5.0), 1.0)
    wide = (np.log(0.1), 1.0, np.log(5.0), 1.0)
    each = calibration.log_weights(dist, np.array([tight, wide]))
    assert each[0] == pytest.approx(calibration.log_weights(dist[:1], tight)[0])
    assert each[1] == pytest.approx(calibration.log_weights(dist[1:], wide)[0])
    assert each[0, 0] - each[0, 1] > each[1, 0] - each[1, 1]
