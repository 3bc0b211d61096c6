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

from vision import images
from vision.errors import VisionError

PX_PER_MM = 2.0
"""Resolution of the rectified top-down image the readers work on."""

PAPERS: dict[str, tuple[float, float]] = {"A3": (420.0, 297.0), "A4": (297.0, 210.0)}
"""Landscape paper sizes in millimetres."""

MAT_GREY = 200
"""The mat's printed tone (0 black, 255 paper white): light, so white cards stand out."""

MIN_MARKERS = 3
"""Markers that must be seen: three still fix the homography when a hand hides one."""

_DETECT_WIDTH = 1000
"""Photos wider than this are searched for markers near this width (reduced by the whole
factor that comes nearest), corners refined at full size."""


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
    h, w = gray.shape[0] // factor, gray.shape[1] // factor
    small = gray if factor == 1 else cv2.resize(gray[:h * factor, :w * factor], (w, h),
                                                interpolation=cv2.INTER_AREA)
    params = cv2.aruco.DetectorParameters()
    # a marker whose white quiet zone the frame cuts but whose black border is whole is
    # still read (OpenCV's default drops any candidate within 3 px of the photo's edge)
    params.minDistanceToBorder = 0
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    detector = cv2.aruco.ArucoDetector(dictionary, params)
    corners, ids, _ = detector.detectMarkers(small)
    if ids is None or len(ids) == 0:
        return {}
    found: dict[int, np.ndarray] = {}
    for marker_id, quad in zip(ids.reshape(-1), corners, strict=True):
        if int(marker_id) in spec.markers and int(marker_id) not in found:
            found[int(marker_id)] = quad.reshape(4, 2).astype(np.float32) / scale
    if found and scale < 1.0:
        pts = np.concatenate(list(found.values())).reshape(-1, 1, 2)
        win = max(2, round(1.5 / scale))
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
        cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), crit)
        pts = pts.reshape(-1, 4, 2)
        found = {k: pts[i] for i, k in enumerate(found)}
    return found


def detect(spec: MatSpec, photo: np.ndarray, px_per_mm: float = PX_PER_MM) -> MatView:
    """Find the mat in a photo; refuses (:class:`VisionError`) when too few markers show."""
    found = find_markers(spec, photo)
    if not found:
        raise VisionError("no markers found: is the mat in view? (the whole mat, its four "
                          "corner markers uncovered and in focus)")
    if len(found) < min(MIN_MARKERS, len(spec.markers)):
        seen = ", ".join(str(k) for k in sorted(found))
        raise VisionError(f"only {len(found)} of the mat's {len(spec.markers)} markers found "
                          f"(id {seen}); at least {MIN_MARKERS} are needed: bring the whole "
                          "mat into view and keep hands and cards off the corner markers")
    src = np.concatenate([found[k] for k in sorted(found)])
    dst = np.concatenate([spec.marker_corners_mm(k) for k in sorted(found)])
    homography, _ = cv2.findHomography(src, dst, 0)
    if homography is None:
        raise VisionError("the markers found do not fit the mat file: is it the right mat.json?")
    ox, oy = spec.origin_mm
    scale = np.array([[px_per_mm, 0, -ox * px_per_mm], [0, px_per_mm, -oy * px_per_mm],
                      [0, 0, 1.0]])
    size = (round(spec.size_mm[0] * px_per_mm), round(spec.size_mm[1] * px_per_mm))
    rectified = cv2.warpPerspective(photo, scale @ homography, size, flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
    return MatView(spec, homography, sorted(found), rectified, px_per_mm)


def read_photo(path: Path) -> np.ndarray:
    """Load a photo as BGR; :class:`VisionError` if it is missing or not an image."""
    path = Path(path)
    if not path.is_file():
        raise VisionError(f"no photo at {path}")
    return images.load(path)
