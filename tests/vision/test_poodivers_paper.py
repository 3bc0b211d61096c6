"""Cards are compared in paper whites. Blender set 6's photo 18 (linen table, a warm
lamp): the lamp clips red on the bare mat all along its edges, so the mat's light is not
divided out and every card keeps the lamp's colour; its five blank cards read as objects,
sure (0.95-1.00, none asked about), by being unlike every face: a white card tinted
orange is no blank picture. The markers' white cells show paper white as the lamp tints
it; taken out, the blanks are blanks."""

from __future__ import annotations

from pathlib import Path

import cv2

from vision import lighting
from vision.mat import PX_PER_MM, detect
from vision.matching import FEATURE_PX_PER_MM

from .helpers import blender_grid

SET6 = Path(__file__).parents[2] / "benchmarks" / "blender-seed6"


def test_blanks_under_a_warm_lamp_are_blanks() -> None:
    shot, reader, image = blender_grid("photos/18.jpg", SET6)
    reading = reader.read(image)
    blanks = sorted(c for c, v in shot["cells"].items() if v == "blank")
    assert len(blanks) == 5
    assert {c: reading.cells[c] for c in blanks} == dict.fromkeys(blanks, "blank")
    unsure = set(reading.unsure())
    wrong = [c for c, v in shot["cells"].items() if reading.cells[c] != v]
    assert not [c for c in wrong if c not in unsure], (wrong, sorted(unsure))


def test_paper_white_reads_the_lamps_colour_where_the_mat_is_clipped() -> None:
    """The light measured on that photo: paper white (the markers' white cells) reads
    far less blue than red in the flattened photo; on a photo whose mat is not clipped it
    reads about 1.0 (the light divided out)."""
    for folder, name, warm in ((SET6, "photos/18.jpg", True),
                               (SET6, "photos/12.jpg", False)):
        _, reader, image = blender_grid(name, folder)
        view = detect(reader.mat, image)
        scale = FEATURE_PX_PER_MM / PX_PER_MM
        low = cv2.resize(view.rectified, None, fx=scale, fy=scale,
                         interpolation=cv2.INTER_AREA)
        light = lighting.flatten(low, reader.mat, FEATURE_PX_PER_MM)
        blue, _, red = light.paper
        if warm:
            assert blue < 0.8 * red, light.paper
        else:
            assert light.paper.min() > 0.95, light.paper
