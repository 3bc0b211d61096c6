"""The printed mat: four ArUco markers that tell where the table is in a photo.

A mat is described by ``mat.json`` (DESIGN.md, "Files for decks, goals, mats")::

    {"dictionary": "DICT_4X4_50", "marker_mm": 40,
     "markers": {"0": [30, 30], "1": [390, 30], "2": [390, 267], "3": [30, 267]}}

marker centres in millimetres from the mat's top-left corner, each marker square to the
mat's edges, any ids of the dictionary at any positions. ``"size_mm"`` (the paper's size)
is optional: without it only the markers' bounding box (the markers' outer edges) is
taken as mat, nothing is guessed beyond. The project's own mats add ``"paper"``.

:func:`detect` finds the markers in a photo and returns a :class:`MatView`: the
homography from photo pixels to mat millimetres and the mat's area seen from straight
above (``rectified``) at :data:`PX_PER_MM`, its pixel (0, 0) at ``spec.origin_mm``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision import images, mat_edges
from vision.errors import VisionError

PX_PER_MM = 2.0
"""Resolution of the rectified top-down image the readers work on."""

PAPERS: dict[str, tuple[float, float]] = {"A3": (420.0, 297.0), "A4": (297.0, 210.0)}
"""Landscape paper sizes in millimetres."""

MAT_GREY = 200
"""The mat's printed tone (0 black, 255 paper white): light, so white cards stand out."""

MIN_MARKERS = 3
"""Markers that must be seen: three still fix the homography when a hand hides one; two
do when ``mat.json`` gives the paper's size and its four edges show (:mod:`vision.mat_edges`)."""

_DETECT_WIDTH = 1000
"""Photos wider than this are searched for markers near this width (reduced by the whole
factor that comes nearest), corners refined at full size."""
_LOCATE_WIDTH = 400
"""Markers are located in a copy reduced to about this width (an A3 mat's 40 mm markers
are some 35 pixels wide there), then read where they lie (:func:`_search`)."""


@dataclass(frozen=True)
class MatSpec:
    """What ``mat.json`` says: marker dictionary, size and centres (mm)."""

    dictionary: str
    marker_mm: float
    markers: dict[int, tuple[float, float]]
    size_mm: tuple[float, float]
    """Width and height of the area read as mat: the paper, or the markers' bounding box."""
    paper: str | None = None
    origin_mm: tuple[float, float] = (0.0, 0.0)
    """Top-left of that area in mat millimetres: (0, 0) when ``mat.json`` gives the size."""
    sized: bool = True
    """Whether ``mat.json`` gave ``size_mm`` (else the area is the markers' bounding box)."""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "dictionary": self.dictionary, "marker_mm": self.marker_mm,
            "markers": {str(k): list(v) for k, v in sorted(self.markers.items())}}
        if self.sized:
            out["size_mm"] = list(self.size_mm)
        if self.paper is not None:
            out["paper"] = self.paper
        return out

    def marker_corners_mm(self, marker_id: int) -> np.ndarray:
        """The marker's corners in ArUco order (top-left, top-right, bottom-right,
        bottom-left), in mat millimetres."""
        x, y = self.markers[marker_id]
        h = self.marker_mm / 2
        return np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]],
                        dtype=np.float32)

    def marker_boxes_mm(self, margin: float = 0.0) -> list[tuple[float, float, float, float]]:
        """Each marker's square (x0, y0, x1, y1) grown by ``margin`` mm: no card goes there."""
        h = self.marker_mm / 2 + margin
        return [(x - h, y - h, x + h, y + h) for x, y in self.markers.values()]


def standard(paper: str = "A3") -> MatSpec:
    """The project's own mat on A3 or A4 landscape: one marker in each corner."""
    if paper not in PAPERS:
        raise VisionError(f"unknown paper {paper!r}: choose {' or '.join(PAPERS)}")
    w, h = PAPERS[paper]
    marker = 40.0 if paper == "A3" else 30.0
    c = 12.0 + marker / 2
    centres = {0: (c, c), 1: (w - c, c), 2: (w - c, h - c), 3: (c, h - c)}
    return MatSpec("DICT_4X4_50", marker, centres, (w, h), paper)


def load(path: Path) -> MatSpec:
    """Read ``mat.json`` (the file or its folder); :class:`VisionError` says what is wrong."""
    path = Path(path)
    file = path / "mat.json" if path.is_dir() else path
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VisionError(f"no mat file at {file}: make one with `companion vision mat "
                          "--out mat.png --json mat.json`") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise VisionError(f"{file} is not a mat.json file ({err})") from None
    try:
        dictionary = str(data.get("dictionary", "DICT_4X4_50"))
        if not dictionary.startswith("DICT_") or not hasattr(cv2.aruco, dictionary):
            raise ValueError(f"unknown marker dictionary {dictionary!r}")
        marker = float(data["marker_mm"])
        markers = {int(k): (float(v[0]), float(v[1])) for k, v in data["markers"].items()}
        if len(markers) < MIN_MARKERS or marker <= 0:
            raise ValueError(f"it needs at least {MIN_MARKERS} markers and a marker size")
        if len({v for v in markers.values()}) < len(markers):
            raise ValueError("two markers share a centre")
        size = data.get("size_mm")
        paper = data.get("paper")
        if size is None:
            return bounded(dictionary, marker, markers, None if paper is None else str(paper))
        size_mm = (float(size[0]), float(size[1]))
        if size_mm[0] <= 0 or size_mm[1] <= 0:
            raise ValueError(f"size_mm must be positive, got {size!r}")
        outside = [k for k, (x, y) in markers.items()
                   if not (0 <= x <= size_mm[0] and 0 <= y <= size_mm[1])]
        if outside:
            raise ValueError(f"marker {outside[0]} lies outside size_mm {list(size)}")
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise VisionError(f"{file} is not a usable mat.json: {err}") from None
    return MatSpec(dictionary, marker, markers, size_mm, None if paper is None else str(paper))


def bounded(dictionary: str, marker_mm: float, markers: dict[int, tuple[float, float]],
            paper: str | None = None) -> MatSpec:
    """A mat known only by its markers: its area is their bounding box (outer edges)."""
    h = marker_mm / 2
    x0 = min(x for x, _ in markers.values()) - h
    y0 = min(y for _, y in markers.values()) - h
    x1 = max(x for x, _ in markers.values()) + h
    y1 = max(y for _, y in markers.values()) + h
    return MatSpec(dictionary, marker_mm, markers, (x1 - x0, y1 - y0), paper, (x0, y0),
                   sized=False)


def mat_of(path: Path | None) -> MatSpec:
    """The mat file given (or its folder), or the project's own A3 mat."""
    return standard("A3") if path is None else load(path)


def render(spec: MatSpec, px_per_mm: float) -> np.ndarray:
    """The mat's area as a BGR image at ``px_per_mm`` (print it at that resolution)."""
    w = round(spec.size_mm[0] * px_per_mm)
    h = round(spec.size_mm[1] * px_per_mm)
    img = np.full((h, w, 3), MAT_GREY, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    side = round(spec.marker_mm * px_per_mm)
    quiet = round(spec.marker_mm * px_per_mm / 6)
    origin = np.array(spec.origin_mm, np.float32)
    for marker_id in spec.markers:
        corner = spec.marker_corners_mm(marker_id)[0] - origin
        x0, y0 = (corner * px_per_mm).round().astype(int)
        img[max(y0 - quiet, 0):y0 + side + quiet, max(x0 - quiet, 0):x0 + side + quiet] = 255
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        img[y0:y0 + side, x0:x0 + side] = marker[:, :, None]
    return img


def write(spec: MatSpec, png: Path, json_path: Path | None, dpi: float) -> None:
    """Write the printable mat image (with its DPI recorded) and its ``mat.json``."""
    img = render(spec, dpi / 25.4)
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise VisionError(f"could not encode the mat as PNG for {png}")
    png.write_bytes(_with_dpi(buf.tobytes(), dpi))
    if json_path is not None:
        json_path.write_text(json.dumps(spec.to_json(), indent=1) + "\n", encoding="utf-8")


def _with_dpi(png: bytes, dpi: float) -> bytes:
    """Add a pHYs chunk so printers print the mat at its true size."""
    import struct
    import zlib

    ppm = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body))
    return png[:33] + chunk + png[33:]  # right after the 8-byte signature and IHDR


@dataclass
class MatView:
    """The mat as found in one photo."""

    spec: MatSpec
    homography: np.ndarray
    """3x3, photo pixels -> mat millimetres."""
    found: list[int]
    rectified: np.ndarray = field(repr=False)
    """BGR, the mat's area from straight above at ``px_per_mm``, pixel (0, 0) at
    ``spec.origin_mm``."""
    px_per_mm: float = PX_PER_MM

    def px_to_mm(self, x_px: float, y_px: float) -> tuple[float, float]:
        """A rectified pixel position -> mat millimetres."""
        ox, oy = self.spec.origin_mm
        return ox + x_px / self.px_per_mm, oy + y_px / self.px_per_mm

    def mm_to_px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Mat millimetres -> a rectified pixel position."""
        ox, oy = self.spec.origin_mm
        return (x_mm - ox) * self.px_per_mm, (y_mm - oy) * self.px_per_mm

    def to_photo(self, points_mm: np.ndarray) -> np.ndarray:
        """Mat millimetres (N x 2) -> photo pixels."""
        inv = np.linalg.inv(self.homography)
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, inv).reshape(-1, 2)

    def to_mat(self, points_px: np.ndarray) -> np.ndarray:
        """Photo pixels (N x 2) -> mat millimetres."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)


def find_markers(spec: MatSpec, photo: np.ndarray) -> dict[int, np.ndarray]:
    """The mat's markers in the photo: id -> 4x2 corner pixels (ArUco order)."""
    gray = photo if photo.ndim == 2 else cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    # a whole factor: each pixel of the reduced photo the mean of a block of the photo's
    # (OpenCV's area reduction by a fraction, 1000 of 1600 pixels, costs 40 times more)
    factor = max(1, round(gray.shape[1] / _DETECT_WIDTH))
    scale = 1.0 / factor
    small = _reduced(gray, factor)
    found = _search(spec, small)
    found = {k: quad / scale for k, quad in found.items()}
    if found and scale < 1.0:
        pts = np.concatenate(list(found.values())).reshape(-1, 1, 2)
        win = max(2, round(1.5 / scale))
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
        cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), crit)
        pts = pts.reshape(-1, 4, 2)
        found = {k: pts[i] for i, k in enumerate(found)}
    return found


def _reduced(gray: np.ndarray, factor: int) -> np.ndarray:
    """``gray`` reduced by a whole ``factor``, each pixel the mean of its block."""
    if factor == 1:
        return gray
    h, w = gray.shape[0] // factor, gray.shape[1] // factor
    out: np.ndarray = cv2.resize(gray[:h * factor, :w * factor], (w, h),
                                 interpolation=cv2.INTER_AREA)
    return out


def _search(spec: MatSpec, gray: np.ndarray) -> dict[int, np.ndarray]:
    """The markers ArUco finds in ``gray``, each read where a search of a reduced copy
    locates it (:data:`_LOCATE_WIDTH`): a search of the whole image costs several times
    more, every square the cards make being a candidate. The same corners as a search of
    the whole image: each marker's outline lies whole in its crop with the thresholds'
    reach around it, and the crop keeps the whole image's bounds on a marker's size.
    The whole image is searched when fewer than three are located, or one located is
    not read in its crop."""
    factor = round(gray.shape[1] / _LOCATE_WIDTH)
    if factor >= 2:
        located = _detect(spec, _reduced(gray, factor), gray.shape)
        if len(located) >= min(MIN_MARKERS, len(spec.markers)):
            found = _in_crops(spec, gray, {k: q * factor + (factor - 1) / 2
                                           for k, q in located.items()}, factor)
            if found is not None:
                return found
    return _detect(spec, gray, gray.shape)


def _in_crops(spec: MatSpec, gray: np.ndarray, located: dict[int, np.ndarray],
              error: float) -> dict[int, np.ndarray] | None:
    """Each of the mat's markers read in a crop of ``gray`` around where it was
    ``located`` (within ``error`` pixels), or, for one not located (a hand over it, too
    small at the reduced size), where the located ones put it; ``None`` when a located
    marker is not read in its crop."""
    ids = sorted(located)
    to_photo, _ = cv2.findHomography(np.concatenate([spec.marker_corners_mm(k) for k in ids]),
                                     np.concatenate([located[k] for k in ids]), 0)
    if to_photo is None:
        return None
    h, w = gray.shape
    reach = _params().adaptiveThreshWinSizeMax + error  # thresholds' widest window, error
    found: dict[int, np.ndarray] = {}
    for marker_id in spec.markers:
        quad = located.get(marker_id)
        if quad is None:
            corners = spec.marker_corners_mm(marker_id).reshape(-1, 1, 2).astype(np.float64)
            quad = cv2.perspectiveTransform(corners, to_photo).reshape(4, 2)
        margin = np.linalg.norm(quad[0] - quad[2]) / 6 + reach  # its quiet zone and more
        x0, y0 = np.clip(np.floor(quad.min(0) - margin), 0, (w, h)).astype(int)
        x1, y1 = np.clip(np.ceil(quad.max(0) + margin), 0, (w, h)).astype(int)
        seen = (_detect(spec, gray[y0:y1, x0:x1], gray.shape).get(marker_id)
                if x1 - x0 > 2 * reach and y1 - y0 > 2 * reach else None)
        if seen is not None:
            found[marker_id] = seen + np.array([x0, y0], np.float32)
        elif marker_id in located:
            return None
    return found


def _params() -> cv2.aruco.DetectorParameters:
    params = cv2.aruco.DetectorParameters()
    # a marker whose white quiet zone the frame cuts but whose black border is whole is
    # still read (OpenCV's default drops any candidate within 3 px of the photo's edge)
    params.minDistanceToBorder = 0
    return params


def _detect(spec: MatSpec, gray: np.ndarray, whole: tuple[int, ...]
            ) -> dict[int, np.ndarray]:
    """The mat's markers ArUco finds in ``gray``, a crop of an image of shape ``whole``
    (its bounds on a marker's perimeter are fractions of the image's size: the whole
    image's are kept): id -> 4x2 corners, the first found of each id."""
    params = _params()
    ratio = max(whole[:2]) / max(gray.shape[:2])
    params.minMarkerPerimeterRate *= ratio
    params.maxMarkerPerimeterRate *= ratio
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for marker_id, quad in zip(ids.reshape(-1), corners, strict=True):
        if int(marker_id) in spec.markers and int(marker_id) not in found:
            found[int(marker_id)] = quad.reshape(4, 2).astype(np.float32)
    return found


def detect(spec: MatSpec, photo: np.ndarray, px_per_mm: float = PX_PER_MM) -> MatView:
    """Find the mat in a photo; refuses (:class:`VisionError`) when too few markers show."""
    found = find_markers(spec, photo)
    if not found:
        raise VisionError("no markers found: is the mat in view? (the whole mat, its four "
                          "corner markers uncovered and in focus)")
    src = np.concatenate([found[k] for k in sorted(found)])
    dst = np.concatenate([spec.marker_corners_mm(k) for k in sorted(found)])
    two = len(found) == 2 and spec.sized  # the paper's edges may fix the rest
    if len(found) < min(MIN_MARKERS, len(spec.markers)) and not two:
        raise _too_few(spec, found)
    homography, _ = cv2.findHomography(src, dst, 0)
    if homography is None:
        raise VisionError("the markers found do not fit the mat file: is it the right mat.json?")
    if len(found) < min(MIN_MARKERS, len(spec.markers)):
        centres = np.array(list(spec.markers.values()), np.float64)
        edged = mat_edges.refine(homography, photo, src, dst, spec.size_mm, centres,
                                 spec.marker_mm)
        if edged is None:
            raise _too_few(spec, found, " and not all four of the paper's edges")
        homography = edged
    ox, oy = spec.origin_mm
    scale = np.array([[px_per_mm, 0, -ox * px_per_mm], [0, px_per_mm, -oy * px_per_mm],
                      [0, 0, 1.0]])
    size = (round(spec.size_mm[0] * px_per_mm), round(spec.size_mm[1] * px_per_mm))
    rectified = cv2.warpPerspective(photo, scale @ homography, size, flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
    return MatView(spec, homography, sorted(found), rectified, px_per_mm)


def _too_few(spec: MatSpec, found: dict[int, np.ndarray], also: str = "") -> VisionError:
    seen = ", ".join(str(k) for k in sorted(found))
    return VisionError(f"only {len(found)} of the mat's {len(spec.markers)} markers found "
                       f"(id {seen}){also}; at least {MIN_MARKERS} are needed: bring the "
                       "whole mat into view and keep hands and cards off the corner markers")


def read_photo(path: Path, whole: bool = False) -> np.ndarray:
    """Load a photo as BGR, no larger than a reader needs (:func:`vision.images.load_photo`)
    unless ``whole``; :class:`VisionError` if it is missing or not an image."""
    path = Path(path)
    if not path.is_file():
        raise VisionError(f"no photo at {path}")
    return images.load(path) if whole else images.load_photo(path)
