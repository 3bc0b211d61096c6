"""Correlating boxes with templates (vision.matching): invariant to the light's gain,
offset and tilt, and clipped pixels left out."""

from __future__ import annotations

import cv2
import numpy as np

from vision import correlation, matching, planes
from vision.templates import Templates

from .helpers import random_templates

BOX_MM = (30.0, 24.0)
INSET_MM = 2.0


def _templates(rng: np.random.Generator, n: int = 5) -> Templates:
    return random_templates(rng, n, BOX_MM, INSET_MM)


def _image(rng: np.random.Generator, t: Templates, at: tuple[int, int]) -> np.ndarray:
    """A 1 px/mm image showing template 2 at ``at`` under a bright, tilted light."""
    ww, wh = matching.window(BOX_MM, INSET_MM)
    q = matching.plane_basis(ww, wh)
    img = (0.6 + 0.05 * rng.random((120, 160, 3))).astype(np.float32)
    picture = t.features[2].reshape(-1, 3)
    ys, xs = np.mgrid[0:wh:matching.STEP, 0:ww:matching.STEP]
    x0, y0 = at[0] + round(INSET_MM), at[1] + round(INSET_MM)
    img[y0 + ys.ravel(), x0 + xs.ravel()] = (0.7 + 1.5 * picture
                                             + 0.3 * q[:, 1:2] + 0.2 * q[:, 2:3])
    return img


def test_a_template_under_any_gain_offset_and_tilt_correlates_fully() -> None:
    rng = np.random.default_rng(4)
    t = _templates(rng)
    img = _image(rng, t, (40, 30))
    known = np.ones(img.shape[:2], np.float32)
    ncc, shift = correlation.correlations(img, known, np.array([(38.0, 32.0)]), t)
    assert ncc[0].argmax() == 2 and ncc[0, 2] > 0.999
    assert tuple(shift[0]) == (2.0, -2.0)


def test_a_shift_between_the_coarse_steps_is_found_by_the_fine_search() -> None:
    """A box 3 mm right and 1 mm up of where it should be: off the 2 mm steps, so only
    the 1 mm search around the best of them (for the best few templates) finds it."""
    rng = np.random.default_rng(6)
    img = cv2.GaussianBlur(rng.random((120, 160, 3)).astype(np.float32), (0, 0), 2.0)
    ww, wh = matching.window(BOX_MM, INSET_MM)
    q = matching.plane_basis(ww, wh)
    at = np.array([(41.0, 31.0)])
    others = _templates(rng)
    mine = planes.deplane(matching.sample(img, at, BOX_MM, INSET_MM, (0,)), q)
    t = Templates(("mine", *others.labels), np.vstack([mine.reshape(1, -1), others.features]),
                  BOX_MM, INSET_MM, np.zeros(6), np.zeros((6, 3)), 0.0)
    known = np.ones(img.shape[:2], np.float32)
    ncc, shift = correlation.correlations(img, known, at - (3.0, -1.0), t)
    assert ncc[0].argmax() == 0 and ncc[0, 0] > 0.999
    assert tuple(shift[0]) == (3.0, -1.0)


def test_a_clipped_sample_is_left_out_not_read_as_bright() -> None:
    """A box with clipped samples is compared over the rest: the template still
    correlates best, and better than when the clipped samples are taken as they are
    (what glare hides still counts against it: the template's whole norm divides)."""
    rng = np.random.default_rng(7)
    t = _templates(rng)
    img = _image(rng, t, (40, 30))
    img[34:40, 44:60] = 1.0  # a clipped streak across the box
    corners = np.array([(40.0, 30.0)])
    known = np.ones(img.shape[:2], np.float32)
    blind = correlation._correlate(img, known, corners, t, (0,))
    known[34:40, 44:60] = 0.0
    seen = correlation._correlate(img, known, corners, t, (0,))
    assert seen[0].argmax() == 2 and blind[0, 2] < seen[0, 2] < 0.95


def test_the_shifted_windows_are_the_boxes_moved_by_each_shift() -> None:
    """Sampling a box at every shift reads what sampling the box moved by each shift
    reads, in the order dy major, dx minor, off the image too."""
    rng = np.random.default_rng(5)
    img = rng.random((60, 80, 3)).astype(np.float32)
    corners = np.array([(20.0, 15.0), (-6.0, 40.0), (70.0, -3.0)])  # two partly off
    for shifts in (matching.SHIFTS_MM, matching.FINE_MM):
        got = matching.sample(img, corners, BOX_MM, INSET_MM, shifts, outside=0.25)
        moved = np.array([(x + dx, y + dy) for x, y in corners
                          for dy in shifts for dx in shifts])
        want = matching.sample(img, moved, BOX_MM, INSET_MM, (0,), outside=0.25)
        assert got.shape == want.shape and np.array_equal(got, want)
        assert (want == 0.25).any() and (want != 0.25).any()


def test_which_samples_are_known_is_read_only_where_a_pixel_is_clipped() -> None:
    """The known samples of every box at every shift are what sampling the known map
    says, off the image too (known there); with nothing clipped in reach of any box
    there is nothing to weigh (``None``), unless every box's weights are asked for."""
    known = np.ones((60, 80), np.float32)
    known[30:33, 50:52] = 0.0  # a clipped spot
    corners = np.array([(20.0, 15.0), (44.0, 22.0), (-6.0, 40.0), (70.0, -3.0)])
    for shifts in (matching.SHIFTS_MM, matching.FINE_MM, (0,)):
        want = matching.sample(known, corners, BOX_MM, INSET_MM, shifts, outside=1.0) > 0.5
        got = matching.known_samples(known, corners, BOX_MM, INSET_MM, shifts)
        assert got is not None and np.array_equal(got, want) and not want.all()
    far = corners[[2, 3]]  # neither reaches the spot
    assert matching.known_samples(known, far, BOX_MM, INSET_MM, matching.SHIFTS_MM) is None
    every = matching.known_samples(known, far, BOX_MM, INSET_MM, matching.SHIFTS_MM, whole=False)
    assert every is not None and every.all()
    known[30:33, 50:52] = 1.0
    assert matching.known_samples(known, corners, BOX_MM, INSET_MM, (0,), whole=False) is None


def test_a_box_seen_whole_correlates_as_when_its_weights_are_all_one() -> None:
    """Leaving the weights out for boxes with nothing clipped changes no correlation."""
    rng = np.random.default_rng(9)
    t = _templates(rng)
    img = _image(rng, t, (40, 30))
    corners = np.array([(38.0, 32.0), (80.0, 60.0)])
    known = np.ones(img.shape[:2], np.float32)
    whole = correlation._correlate(img, known, corners, t, matching.SHIFTS_MM)
    known[100:104, 5:9] = 0.0  # clipped, but out of reach of both boxes
    weighed = correlation._correlate(img, known, corners, t, matching.SHIFTS_MM)
    samples = matching.sample(img, corners, BOX_MM, INSET_MM, matching.SHIFTS_MM, 0.0)
    q = matching.plane_basis(*matching.window(BOX_MM, INSET_MM))
    ones = np.ones(samples.shape[:2], bool)
    flat = planes.deplane_weighted(samples, ones, q).reshape(len(samples), -1)
    scale = 1.0 / np.maximum(np.sqrt(np.einsum("ij,ij->i", flat, flat)), 1e-9)
    assert np.array_equal(whole, weighed)
    assert np.array_equal(whole, (flat @ t.unit.T) * scale[:, None])


def test_a_batch_of_whole_and_clipped_boxes_is_each_box_fitted_alone() -> None:
    """Boxes seen whole and boxes with clipped samples in one batch: each box's samples
    with its plane removed are what fitting that box alone gives (the whole ones' plane
    over every sample, the others' over their known ones, the unknown left out), for
    one weight for all channels and for each channel's own."""
    rng = np.random.default_rng(11)
    q = matching.plane_basis(*matching.window(BOX_MM, INSET_MM))
    samples = rng.random((6, len(q), 3)).astype(np.float32)
    for weight in (np.ones((6, len(q)), bool), np.ones((6, len(q), 3), bool)):
        weight[[1, 4], 5:40] = False
        both = planes.deplane_weighted(samples, weight, q)
        for k in range(6):
            alone = planes.deplane_weighted(samples[k:k + 1], weight[k:k + 1], q)
            assert np.allclose(both[k], alone[0], atol=1e-5)
        seen = [0, 2, 3, 5]
        assert np.allclose(both[seen], planes.deplane(samples[seen], q), atol=1e-5)
        assert not both[[1, 4], 5:40].any() and both[[1, 4], 40:].any()
    weight[2, 50:60, 1] = False  # clipped in one channel: the others' samples all count
    both = planes.deplane_weighted(samples, weight, q)
    for ch in range(3):
        one = planes.deplane_weighted(samples[:, :, ch:ch + 1], weight[:, :, ch], q)
        assert np.allclose(both[:, :, ch:ch + 1], one, atol=1e-5)
    assert not both[2, 50:60, 1].any() and both[2, 50:60, [0, 2]].all()


def test_the_per_channel_basis_is_made_once() -> None:
    q = matching.plane_basis(*matching.window(BOX_MM, INSET_MM))
    first = planes.per_channel(q, 3)
    assert planes.per_channel(q, 3) is first
    assert np.array_equal(first, np.kron(q, np.eye(3, dtype=q.dtype)))
    assert planes.per_channel(q.copy(), 3) is not first


def test_distances_and_means_of_a_batch_are_each_box_compared_alone() -> None:
    """Boxes seen whole, partly clipped and mostly clipped in one batch (one weight for
    all channels, and each channel's own): each box's distances and window means are
    what comparing it alone gives, so the partly clipped boxes' rows are compared only
    as such and the others' only whole."""
    rng = np.random.default_rng(12)
    t = _templates(rng)
    q = matching.plane_basis(*matching.window(BOX_MM, INSET_MM))
    samples = (0.5 + rng.random((6, len(q), 3))).astype(np.float32)
    for weight in (np.ones((6, len(q)), bool), np.ones((6, len(q), 3), bool)):
        weight[[1, 4], 5:40] = False  # partly clipped
        weight[3, 10:] = False  # mostly clipped: compared over all of it
        both = matching.distances(samples, t, 0.01, weight)
        means = matching.window_means(samples, weight, 6)
        for k in range(6):
            alone = matching.distances(samples[k:k + 1], t, 0.01, weight[k:k + 1])
            assert np.allclose(both[k], alone[0], atol=1e-6)
            assert np.allclose(means[k], matching.window_means(samples[k:k + 1],
                                                               weight[k:k + 1], 1)[0])
        whole = matching.distances(samples, t, 0.01)
        assert np.allclose(both[[0, 2, 3, 5]], whole[[0, 2, 3, 5]], atol=1e-6)
        assert not np.allclose(both[[1, 4]], whole[[1, 4]], atol=1e-3)
        assert not np.allclose(means[1], samples[1].mean(0), atol=1e-4)
        shows = np.broadcast_to(weight[1] if weight.ndim == 3 else weight[1][:, None],
                                samples[1].shape)
        assert np.allclose(means[1], (samples[1] * shows).sum(0) / shows.sum(0), atol=1e-6)
        assert np.allclose(means[[0, 3]], samples[[0, 3]].mean(1)[:, None], atol=1e-6)
    weight = np.ones((6, len(q), 3), bool)
    weight[2, 50:60, 1] = False  # all partly clipped but one: the rows stay apart
    weight[[0, 1, 3, 4, 5], 0] = False
    both = matching.distances(samples, t, 0.01, weight)
    for k in range(6):
        assert np.allclose(both[k], matching.distances(samples[k:k + 1], t, 0.01,
                                                       weight[k:k + 1])[0], atol=1e-6)


def test_the_clipped_pixels_of_a_read_only_image_are_summed_once() -> None:
    """known_samples keeps the summed clipped pixels of the last read-only ``known`` (a
    read asks for them many times), never of one that may still change: changed between
    two calls, it is read anew."""
    known = np.ones((120, 160), np.float32)
    corners = np.array([(38.0, 32.0), (80.0, 60.0)])
    assert matching.known_samples(known, corners, BOX_MM, INSET_MM, matching.SHIFTS_MM) is None
    known[40:44, 45:49] = 0.0  # clipped, in reach of the first box
    weight = matching.known_samples(known, corners, BOX_MM, INSET_MM, matching.SHIFTS_MM)
    assert weight is not None and not weight.all() and weight[25:].all()
    frozen = known.copy()
    frozen.flags.writeable = False
    again = matching.known_samples(frozen, corners, BOX_MM, INSET_MM, matching.SHIFTS_MM)
    assert again is not None and np.array_equal(again, weight)
    assert matching._clipped_table(frozen) is matching._clipped_table(frozen)


def test_a_second_window_is_searched_where_the_first_found_each_box_and_about_it() -> None:
    """Given ``around``, each template's correlation is its best over the window there and
    the fine shifts about it (each window compared alone, clipped pixels left out), and
    the shift is where the best template correlated best."""
    rng = np.random.default_rng(8)
    img = cv2.GaussianBlur(rng.random((120, 160, 3)).astype(np.float32), (0, 0), 2.0)
    t = _templates(rng)
    known = np.ones(img.shape[:2], np.float32)
    known[40:46, 50:58] = 0.0  # clipped, in reach of the second box
    corners = np.array([(20.0, 20.0), (44.0, 30.0)])
    around = np.array([(2.0, -2.0), (-1.0, 1.0)])
    ncc, shift = correlation.correlations(img, known, corners, t, around)
    fine = np.array([(dx, dy) for dy in matching.FINE_MM for dx in matching.FINE_MM], float)
    each = np.stack([correlation._correlate(img, known, corners + around + d, t, (0,))
                     for d in fine], 1)  # boxes x shifts x templates
    assert np.allclose(ncc, each.max(1), atol=1e-6)
    for k in range(2):
        top = each[k].max(0).argmax()
        assert tuple(shift[k]) == tuple(around[k] + fine[each[k, :, top].argmax()])
    assert (shift != around).any()


def test_every_template_is_compared_at_the_fine_shifts_however_many() -> None:
    """Forty templates, most of them alike: each one's correlation is its best over the
    coarse shifts and the fine shifts about the best template's coarse shift, not only
    the few best's (a card's own section compared coarsely loses to lookalikes compared
    finely), and the shift is where the best template correlated best."""
    rng = np.random.default_rng(9)
    img = cv2.GaussianBlur(rng.random((120, 160, 3)).astype(np.float32), (0, 0), 2.0)
    ww, wh = matching.window(BOX_MM, INSET_MM)
    q = matching.plane_basis(ww, wh)
    at = np.array([(41.0, 31.0)])
    mine = planes.deplane(matching.sample(img, at, BOX_MM, INSET_MM, (0,)), q).reshape(-1)
    alike = mine[None, :] + 0.6 * rng.standard_normal((39, mine.size)) * mine.std()
    features = np.vstack([alike, mine[None, :]]).astype(np.float32)
    t = Templates(tuple(f"t{i}" for i in range(40)), features, BOX_MM, INSET_MM,
                  np.zeros(40), np.zeros((40, 3)), 0.0)
    known = np.ones(img.shape[:2], np.float32)
    corner = at - (3.0, -1.0)  # off the coarse steps
    ncc, shift = correlation.correlations(img, known, corner, t)
    coarse = correlation._correlate(img, known, corner, t, matching.SHIFTS_MM)  # shifts x N
    steps = np.array([(dx, dy) for dy in matching.SHIFTS_MM for dx in matching.SHIFTS_MM],
                     float)
    first = steps[coarse[:, coarse.max(0).argmax()].argmax()]
    fine = np.array([(dx, dy) for dy in matching.FINE_MM for dx in matching.FINE_MM], float)
    near = np.stack([correlation._correlate(img, known, corner + first + d, t, (0,))[0]
                     for d in fine])  # fine shifts x N
    assert np.allclose(ncc[0], np.maximum(coarse.max(0), near.max(0)), atol=1e-6)
    assert ncc[0].argmax() == 39 and ncc[0, 39] > 0.999
    later = np.argsort(-coarse.max(0))[8:]  # not among the best few at the coarse shifts
    assert (near.max(0)[later] > coarse.max(0)[later] + 0.01).any()
    assert tuple(shift[0]) == (3.0, -1.0)
