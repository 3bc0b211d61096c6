"""What benchmarks/vision_accuracy.py counts: a wrong cell is silent when no player is
asked about it, and a refused photo is wrong but not silent (the refusal says why)."""

from __future__ import annotations

import numpy as np

from benchmarks.vision_accuracy import measure
from vision.errors import VisionError
from vision.reading import Reading

PHOTO = np.full((48, 64, 3), 128, np.uint8)
TRUTH = {"A1": "closed", "B1": "blank", "C1": "sleeper"}


def test_a_refused_photo_is_wrong_but_not_silent() -> None:
    def refuse(photo: np.ndarray) -> Reading:
        raise VisionError("only 1 of the mat's 4 markers found")

    out = measure([(PHOTO, TRUTH, refuse)])
    assert (out["wrong"], out["silent"], out["unwarned"], out["refused"]) == (3, 0, 0, 1)
    assert out["per_cell_error"] == 1.0 and out["layouts_exact"] == 0


def test_a_wrong_cell_is_silent_unless_it_is_asked_about() -> None:
    def read(photo: np.ndarray) -> Reading:
        return Reading("poodivers", {"A1": "object", "B1": "closed", "C1": "sleeper"},
                       {"A1": 0.99, "B1": 0.4, "C1": 1.0})

    out = measure([(PHOTO, TRUTH, read)])
    assert (out["wrong"], out["silent"], out["unwarned"], out["refused"]) == (2, 1, 1, 0)


def test_every_cell_asked_about_is_counted_right_or_wrong() -> None:
    """B1 is read wrong and asked about, C1 read right and asked about (a player taps
    both), A1 is read sure: two questions."""
    def read(photo: np.ndarray) -> Reading:
        return Reading("poodivers", {"A1": "closed", "B1": "closed", "C1": "sleeper"},
                       {"A1": 0.99, "B1": 0.4, "C1": 0.6})

    out = measure([(PHOTO, TRUTH, read)])
    assert (out["wrong"], out["silent"], out["asked"]) == (1, 0, 2)


def test_each_wrong_cell_is_named_when_asked_for() -> None:
    def read(photo: np.ndarray) -> Reading:
        return Reading("poodivers", {"A1": "object", "B1": "closed", "C1": "sleeper"},
                       {"A1": 0.99, "B1": 0.4, "C1": 1.0})

    def refuse(photo: np.ndarray) -> Reading:
        raise VisionError("only 1 of the mat's 4 markers found")

    out = measure([(PHOTO, TRUTH, read), (PHOTO, TRUTH, refuse)], cells=True)
    assert out["wrong_cells"] == [
        [0, "A1", "closed", "object", False, 0.99],
        [0, "B1", "blank", "closed", True, 0.4],
        [1, "A1", "closed", "refused", False, None],
        [1, "B1", "blank", "refused", False, None],
        [1, "C1", "sleeper", "refused", False, None],
    ]
    assert "wrong_cells" not in measure([(PHOTO, TRUTH, read)])


def test_an_asked_cell_whose_value_is_not_offered_is_counted() -> None:
    """B1 (a blank) is asked about with closed and sleeper offered: the player must pick
    it from every value; C1 is asked about with its value among the candidates."""
    def read(photo: np.ndarray) -> Reading:
        return Reading("poodivers", {"A1": "closed", "B1": "closed", "C1": "sleeper"},
                       {"A1": 0.99, "B1": 0.4, "C1": 0.6},
                       candidates={"B1": {"closed": 0.6, "sleeper": 0.4},
                                   "C1": {"sleeper": 0.6, "closed": 0.4}})

    out = measure([(PHOTO, TRUTH, read)])
    assert (out["wrong"], out["asked"], out["unoffered"]) == (1, 2, 1)
