"""Matrix products checked by their result (vision.blas): no warning from the BLAS's
floating-point flags, a clear error for NaN or infinity, in matching's products too."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from vision import correlation, matching
from vision.blas import NOT_FINITE, product
from vision.errors import VisionError
from vision.templates import Templates

from .helpers import random_templates

BOX_MM = (30.0, 24.0)
INSET_MM = 2.0


def _templates(rng: np.random.Generator, n: int = 4) -> Templates:
    return random_templates(rng, n, BOX_MM, INSET_MM)


def test_flags_raised_by_a_product_with_a_finite_result_are_not_reported() -> None:
    """An underflow raises a flag in the BLAS as an SME core's streaming mode does
    (numpy reports it here since it is asked to): the product says nothing, plain ``@``
    would, and the result is the product's."""
    a = np.full((40, 300), 1e-25, np.float32)
    b = np.full((300, 40), 1e-25, np.float32)
    with np.errstate(all="raise"):
        with pytest.raises(FloatingPointError):
            _ = a @ b
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = product(a, b)
    assert out.shape == (40, 40) and np.array_equal(out, np.zeros((40, 40), np.float32))


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e30])  # 1e30: squares overflow float32
def test_a_product_that_is_not_finite_is_a_vision_error(bad: float) -> None:
    a = np.ones((6, 5), np.float32)
    a[2, 3] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(VisionError) as err:
            product(a, np.ascontiguousarray(a.T))
    assert str(err.value) == NOT_FINITE and "take the photo again" in str(err.value)


def test_matching_s_products_are_checked() -> None:
    """A NaN in the photo's samples reaches the products of every cell with every
    template: the matching says so as a VisionError, not a warning and NaN distances."""
    rng = np.random.default_rng(3)
    t = _templates(rng)
    n = t.features.shape[1] // 3
    samples = rng.random((8, n, 3)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isfinite(matching.distances(samples, t, matching.QUANTUM)).all()
        samples[5, 7, 1] = np.nan
        with pytest.raises(VisionError, match="NaN or infinity"):
            matching.distances(samples, t, matching.QUANTUM)
        img = rng.random((120, 160, 3)).astype(np.float32)
        img[40:60, 50:70] = np.inf
        known = np.ones(img.shape[:2], np.float32)
        with pytest.raises(VisionError, match="NaN or infinity"):
            correlation.correlations(img, known, np.array([(45.0, 35.0)]), t)
        img[40:60, 50:70] = np.nan
        known[45:50, 55:60] = 0.0  # clipped there: the plane is fitted to the rest
        with pytest.raises(VisionError, match="NaN or infinity"):
            correlation.correlations(img, known, np.array([(45.0, 35.0)]), t)
