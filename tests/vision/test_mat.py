"""The printed mat: print -> photograph -> homography back to millimetres."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision import mat, synth
from vision.errors import VisionError
from vision.images import load as read_image


def corner_error_mm(spec: mat.MatSpec, scene: synth.Scene) -> float:
    """How far (mm) the detected homography puts the mat's true corners."""
    w, h = spec.size_mm
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    view = mat.detect(spec, scene.photo)
    return float(np.linalg.norm(view.to_mat(scene.to_photo(corners)) - corners, axis=1).max())


def test_printed_mat_round_trip_is_within_a_millimetre(tmp_path: Path) -> None:
    png, js = tmp_path / "mat.png", tmp_path / "mat.json"
    assert main(["vision", "mat", "--out", str(png), "--json", str(js), "--dpi", "100"]) == 0
    spec = mat.load(js)
    assert spec.size_mm == (420.0, 297.0) and sorted(spec.markers) == [0, 1, 2, 3]
    printed = read_image(png)
    assert printed.shape[:2] == (round(297 / 25.4 * 100), round(420 / 25.4 * 100))
    # the printed sheet, photographed through every camera distortion but the lens's
    camera = synth.Distortions(tilt_deg=30, rotation_deg=180, fill=(0.6, 0.95), light=0.8,
                               shadow=0.8, noise=8, blur=1.5, jpeg=50)
    errors = [corner_error_mm(spec, synth.mat_scene(spec, seed, camera, sheet=printed))
              for seed in range(6)]
    assert max(errors) < 1.0, errors


def test_the_png_says_its_dpi_so_it_prints_at_true_size(tmp_path: Path) -> None:
    png = tmp_path / "a4.png"
    assert main(["vision", "mat", "--out", str(png), "--paper", "A4", "--dpi", "150"]) == 0
    data = png.read_bytes()
    i = data.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", data[i + 4:i + 13])
    assert (ppm_x, ppm_y, unit) == (round(150 / 0.0254), round(150 / 0.0254), 1)
    found = mat.find_markers(mat.standard("A4"), read_image(png))
    assert sorted(found) == [0, 1, 2, 3]


def test_any_mat_json_works(tmp_path: Path) -> None:
    """Another size, other ids, markers not in the corners."""
    custom = {"dictionary": "DICT_4X4_50", "marker_mm": 30, "size_mm": [310, 225],
              "markers": {"7": [150, 25], "11": [280, 110], "23": [150, 195], "42": [20, 110]}}
    (tmp_path / "mat.json").write_text(json.dumps(custom))
    spec = mat.load(tmp_path)
    assert spec.size_mm == (310.0, 225.0) and spec.origin_mm == (0.0, 0.0)
    scene = synth.mat_scene(spec, 3, synth.Distortions(tilt_deg=20, rotation_deg=90))
    assert corner_error_mm(spec, scene) < 1.0
    view = mat.detect(spec, scene.photo)
    assert view.found == [7, 11, 23, 42]
    assert view.rectified.shape[:2] == (450, 620)  # 2 px per mm


def test_without_size_mm_only_the_markers_bounding_box_is_mat(tmp_path: Path) -> None:
    """Nothing is guessed beyond the markers' outer edges (DESIGN.md)."""
    markers = {"7": [150, 25], "11": [280, 110], "23": [150, 195], "42": [20, 110]}
    sized = mat.MatSpec("DICT_4X4_50", 30, {int(k): (float(v[0]), float(v[1]))
                                             for k, v in markers.items()}, (310, 225))
    (tmp_path / "mat.json").write_text(json.dumps({"marker_mm": 30, "markers": markers}))
    spec = mat.load(tmp_path)
    assert spec.origin_mm == (5.0, 10.0) and spec.size_mm == (290.0, 200.0)
    assert not spec.sized and "size_mm" not in spec.to_json()
    scene = synth.mat_scene(sized, 4, synth.Distortions(tilt_deg=20, rotation_deg=90))
    view = mat.detect(spec, scene.photo)
    assert view.rectified.shape[:2] == (400, 580)
    # the rectified area's corner pixel is marker 42's left edge and marker 7's top edge
    assert view.px_to_mm(0, 0) == (5.0, 10.0)
    straight = mat.detect(sized, scene.photo).rectified
    assert np.abs(straight[20:420, 10:590].astype(int) - view.rectified).mean() < 3
    (tmp_path / "mat.json").write_text(json.dumps({"marker_mm": 30, "markers": markers,
                                                   "size_mm": [200, 225]}))
    with pytest.raises(VisionError, match="marker 11 lies outside size_mm"):
        mat.load(tmp_path)


def _hands_over(scene: synth.Scene, corners_mm: list[list[int]]) -> np.ndarray:
    """The scene's photo with a hand-coloured disc over the markers at those corners."""
    photo = scene.photo.copy()
    for corner in corners_mm:
        x, y = scene.to_photo(np.array([[corner[0] + (32 if corner[0] == 0 else -32),
                                         corner[1] + (32 if corner[1] == 0 else -32)]]))[0]
        cv2.circle(photo, (round(x), round(y)), 90, (60, 90, 140), -1)
    return photo


def test_two_markers_and_the_papers_edges_fix_the_mat(a3: mat.MatSpec) -> None:
    """Two markers under hands: the paper's four edges, seen, fix what the other two
    markers would (the mat's corners within 0.6 mm of the truth, as near as the four
    markers put them; the two markers alone put them 1.2 to 3.4 mm off); an edge hidden
    too, the photo is refused, saying which markers were found."""
    w, h = a3.size_mm
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    camera = synth.Distortions(tilt_deg=25, rotation_deg=15, fill=(0.7, 0.85), light=0.8,
                               shadow=0.5, noise=4, blur=1.0, jpeg=80)
    for seed, hidden in ((1, [[0, 0], [420, 0]]), (2, [[0, 0], [420, 297]]),
                         (3, [[420, 0], [420, 297]])):
        scene = synth.mat_scene(a3, seed, camera)
        view = mat.detect(a3, _hands_over(scene, hidden))
        assert len(view.found) == 2
        error = np.linalg.norm(view.to_mat(scene.to_photo(corners)) - corners, axis=1).max()
        assert error < 0.6, (seed, error)
    scene = synth.mat_scene(a3, 1, camera)
    photo = _hands_over(scene, [[0, 0], [420, 0]])
    # the table's colour over the whole bottom edge of the paper
    bottom = scene.to_photo(np.array([[-20, h - 15], [w + 20, h - 15], [w + 20, h + 40],
                                      [-20, h + 40]]))
    cv2.fillPoly(photo, [bottom.round().astype(np.int32)], (60, 90, 140))
    with pytest.raises(VisionError, match=r"only 2 of the mat's 4 markers found \(id 2, 3\) "
                                          r"and not all four of the paper's edges; at least 3"):
        mat.detect(a3, photo)


def test_a_photo_without_enough_markers_is_refused(a3: mat.MatSpec) -> None:
    scene = synth.mat_scene(a3, 1)
    # two markers under hands, and a mat.json without the paper's size: no edges to seek
    unsized = mat.bounded(a3.dictionary, a3.marker_mm, a3.markers)
    with pytest.raises(VisionError, match=r"only 2 of the mat's 4 markers found \(id 2, 3\); "
                                          r"at least 3 are needed"):
        mat.detect(unsized, _hands_over(scene, [[0, 0], [420, 0]]))
    with pytest.raises(VisionError, match=r"only 1 of the mat's 4 markers found"):
        mat.detect(a3, _hands_over(scene, [[0, 0], [420, 0], [420, 297]]))
    with pytest.raises(VisionError, match="no markers found: is the mat in view"):
        mat.detect(a3, np.full((600, 800, 3), 128, np.uint8))


def test_bad_mat_files_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(VisionError, match=r"no mat file at .*companion vision mat"):
        mat.load(tmp_path / "missing.json")
    (tmp_path / "mat.json").write_text("{not json")
    with pytest.raises(VisionError, match=r"is not a mat\.json file"):
        mat.load(tmp_path)
    (tmp_path / "mat.json").write_text(json.dumps({"marker_mm": 40, "markers": {"0": [1, 1]}}))
    with pytest.raises(VisionError, match="at least 3 markers"):
        mat.load(tmp_path)
    (tmp_path / "mat.json").write_text(json.dumps({"dictionary": "DICT_9X9_1", "marker_mm": 4,
                                                   "markers": {}}))
    with pytest.raises(VisionError, match="unknown marker dictionary"):
        mat.load(tmp_path)


@pytest.mark.parametrize("gap_px", [1, 2])
def test_a_marker_whose_quiet_zone_the_frame_cuts_is_still_found(gap_px: int) -> None:
    """A photo framed tight: marker 0's black border a pixel or two from the left edge."""
    spec = mat.standard("A4")
    px_per_mm = 4.0
    sheet = mat.render(spec, px_per_mm)
    left = round(spec.marker_corners_mm(0)[0][0] * px_per_mm) - gap_px
    found = mat.find_markers(spec, np.ascontiguousarray(sheet[:, left:]))
    assert sorted(found) == [0, 1, 2, 3]
    expected = spec.marker_corners_mm(0) * px_per_mm - [left, 0]
    assert np.abs(found[0] - expected).max() < 1.5


@pytest.mark.parametrize("photo", ["00.jpg", "05.jpg"])  # 05: a hand hides marker 0
def test_markers_read_where_a_reduced_copy_locates_them_are_the_whole_search_s(
        photo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1024-pixel render (the Blender set): each marker is read in a crop around where
    the reduced copy locates it (the whole photo is never searched), with the corners a
    search of the whole photo gives, to the bit."""
    folder = Path(__file__).with_name("blender")
    spec = mat.load(folder / ("gloss" if photo == "05.jpg" else "linen") / "mat.json")
    gray = cv2.cvtColor(read_image(folder / "photos" / photo), cv2.COLOR_BGR2GRAY)
    whole = mat._detect(spec, gray, gray.shape)
    searched: list[tuple[int, ...]] = []
    detect = mat._detect

    def recorded(spec: mat.MatSpec, image: np.ndarray, shape: tuple[int, ...]
                 ) -> dict[int, np.ndarray]:
        searched.append(image.shape)
        return detect(spec, image, shape)

    monkeypatch.setattr(mat, "_detect", recorded)
    found = mat.find_markers(spec, read_image(folder / "photos" / photo))
    assert sorted(found) == sorted(whole) == sorted(spec.markers)[photo == "05.jpg":]
    assert all(np.array_equal(found[k], whole[k]) for k in whole)
    assert gray.shape not in searched and len(searched) == 1 + len(spec.markers)
