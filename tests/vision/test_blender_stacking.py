"""The physically based renderer's shoals are ones a table could hold: a card rests on
the mat and on the cards under it, bowed as they are, and passes through none of them
(``benchmarks/render_blender.py``, :func:`resting_height`). Stacked only a thickness
apart, a lower card's raised ends showed through the card above it in some 15 % of the
committed sets' Shoal sections (docs/vision.md, "The Blender shoals' cards passed through
each other")."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.render_blender import THICKNESS_MM, card_surface, resting_height


def card(x: float, y: float, curl: float, angle: float = 0.0) -> dict[str, Any]:
    return {"centre_mm": [x, y], "size_mm": [80.0, 60.0], "angle_deg": angle,
            "curl_mm": curl}


def footprint(c: dict[str, Any]) -> np.ndarray:
    ys, xs = np.mgrid[-60:60:0.5, -60:60:0.5]
    return np.stack([xs.ravel(), ys.ravel()], 1) + np.asarray(c["centre_mm"], float)


def test_a_card_over_another_s_raised_end_rests_on_it() -> None:
    """The lower card bows 1.4 mm, the upper 0.3: the upper card's middle lies over the
    lower card's end, which rises a millimetre above a thickness's stacking."""
    lower = card(100.0, 100.0, 1.4)
    lower["z_mm"] = resting_height(lower, [])
    upper = card(140.0, 100.0, 0.3)
    upper["z_mm"] = resting_height(upper, [lower])
    points = footprint(upper)
    under = card_surface(upper, points) - THICKNESS_MM
    face = card_surface(lower, points)
    both = ~np.isnan(under) & ~np.isnan(face)
    assert both.sum() > 1000
    assert (under[both] >= face[both] - 0.05).all()
    assert (under[both] - face[both]).min() < 0.1  # it touches: it does not float
    assert upper["z_mm"] > lower["z_mm"] + THICKNESS_MM + 0.9


def test_flat_cards_stack_a_thickness_apart_on_the_mat() -> None:
    first = card(100.0, 100.0, 0.0)
    first["z_mm"] = resting_height(first, [])
    second = card(120.0, 110.0, 0.0)
    second["z_mm"] = resting_height(second, [first])
    assert abs(first["z_mm"] - THICKNESS_MM) < 0.05
    assert abs(second["z_mm"] - first["z_mm"] - THICKNESS_MM) < 0.05


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(-40, 40), st.floats(-30, 30), st.floats(0.0, 1.5),
                          st.floats(-2, 2)), min_size=2, max_size=5))
def test_no_card_passes_through_one_under_it(spots: list[tuple[float, ...]]) -> None:
    """Whatever the places, bows and turns: every card's underside lies on or above the
    face of every card laid before it, and above the mat (to within what the half
    millimetre it is measured every leaves: a twentieth of a millimetre)."""
    laid: list[dict[str, Any]] = []
    for x, y, curl, angle in spots:
        c = card(100.0 + x, 100.0 + y, curl, angle)
        c["z_mm"] = resting_height(c, laid)
        under = card_surface(c, footprint(c)) - THICKNESS_MM
        assert np.nanmin(under) >= -0.05
        for other in laid:
            face = card_surface(other, footprint(c))
            both = ~np.isnan(under) & ~np.isnan(face)
            assert (under[both] >= face[both] - 0.05).all()
        laid.append(c)
