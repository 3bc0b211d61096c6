"""A pixel clipped in one channel still shows the others: a warm light clips the red
channel of every pale card long before green and blue, and the Tokyo Poo Divers reader
reads those cards from what their other channels show."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vision import matching, templates
from vision.decks import Faces
from vision.synth_tables import Table

from .helpers import misread, read_grid


def warm(photo: np.ndarray, gain: float) -> np.ndarray:
    """``photo`` (BGR) with its red channel brightened ``gain`` times and clipped at the
    sensor's top, as a warm lamp or an exposure set for the shadows leaves it."""
    out = photo.astype(np.float32)
    out[:, :, 2] *= gain
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.mark.parametrize(("style", "layout"), [("project", "cow"), ("offwhite", "donut")])
def test_a_photo_clipped_in_red_is_read_from_green_and_blue(
        user_table: Callable[[str], Table], style: str, layout: str) -> None:
    """An easy photo whose red channel clips over a fifth of it (every pale card and the
    closed backs' rings): main read a card as unseen wherever one channel clipped, and
    read 19-42 of the 68 cards wrong (closed backs as blanks), asking about 56-60."""
    table = user_table(style)
    scene = table.poodivers(7100, "easy", layout)
    photo = warm(scene.photo, 1.6)
    assert (photo[:, :, 2] >= 254).mean() > 0.15
    assert (photo[:, :, :2] >= 254).mean() < 0.01
    reading = read_grid(table, layout, photo)
    assert reading.cells == scene.cells, misread(scene.cells, reading.cells)
    assert len(reading.unsure()) <= 3


def test_distances_leave_out_each_channel_where_it_is_clipped(faces: Faces) -> None:
    """A card whose red channel is clipped over most of it, compared with a weight per
    channel, lies as near its own picture as its green and blue say; with a weight per
    pixel (a pixel unknown if any channel clipped) too little is left, and it is compared
    whole, clipped red and all."""
    pictures = templates.poo_templates(faces)
    ww, wh = matching.window(pictures.box_mm, pictures.inset_mm)
    n = len(range(0, wh, matching.STEP)) * len(range(0, ww, matching.STEP))
    card = pictures.features[:1].reshape(1, n, 3) + pictures.means[:1, None, :]
    rng = np.random.default_rng(3)
    clipped = rng.random(n) < 0.8
    seen = card.copy()
    seen[0, clipped, 2] = 1.0 + rng.random(int(clipped.sum())) * 0.3  # red: no pattern
    per_channel = np.ones((1, n, 3), bool)
    per_channel[0, clipped, 2] = False
    per_pixel = np.asarray(per_channel.all(2))
    noise = matching.QUANTUM
    own = matching.distances(card.astype(np.float32), pictures, noise)[0, 0]
    by_channel = matching.distances(seen.astype(np.float32), pictures, noise, per_channel)
    by_pixel = matching.distances(seen.astype(np.float32), pictures, noise, per_pixel)
    assert by_channel[0].argmin() == 0
    assert by_channel[0, 0] < own + 0.05
    assert by_pixel[0, 0] > 2 * by_channel[0, 0]
