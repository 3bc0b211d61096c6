"""Synthetic table photos with ground truth, for tests and benchmarks.

A scene is laid out on the mat in millimetres (Shoal: a legal shoal of fish cards, each
placed by a slightly careless hand; Tokyo Poo Divers: a layout of cards, some flipped),
lit (:mod:`vision.synth_light`: uneven light, colour casts, soft shadows, a glare spot,
a veil, exposure) and photographed by a virtual camera (tilt, rotation about the lens
axis, distance, barrel distortion, blur, sensor noise, JPEG). The mat is printed on a
:class:`Paper` (grey to bright white or cream, matte or glossy); :mod:`vision.synth_tables`
puts together whole tables a user might have. The same seed gives the same photo and
truth::

    scene = shoal_scene(deck, mat.standard(), seed=7, distortions=PRESETS["hard"])
    scene.photo        # BGR uint8, 1600 x 1200
    scene.cells        # {"0,0": "angel", ...} as the reader should report it
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.games.shoal import placement
from companion.games.shoal.deck import load_deck
from companion.games.shoal.layout import normalise
from vision import art
from vision.mat import MatSpec
from vision.synth_camera import PHOTO_SIZE, camera, distort, undistort
from vision.synth_light import light

CANVAS_PX_PER_MM = 4.0
TABLE_MM = 50.0
"""Table visible around the mat on the canvas."""


@dataclass(frozen=True)
class Distortions:
    """Upper bounds of what the virtual camera and table do; each scene draws below them."""

    tilt_deg: float = 0.0
    rotation_deg: float = 0.0
    fill: tuple[float, float] = (0.9, 0.9)
    """Share of the frame the mat spans (its distance from the camera)."""
    barrel: float = 0.0
    light: float = 0.0
    glare: float = 0.0
    shadow: float = 0.0
    noise: float = 0.0
    blur: float = 0.0
    jpeg: int = 100
    """Lowest JPEG quality; 100 means no JPEG."""
    jitter_mm: float = 0.0
    jitter_deg: float = 0.0
    veil: float = 0.0
    """Glare as a veil: a broad brightening that lowers contrast and does not clip."""
    cast: float = 0.0
    """Strength of a colour cast drawn from ``casts`` (:data:`vision.synth_light.CASTS`)."""
    casts: tuple[str, ...] = ("tungsten", "shade", "fluorescent")
    exposure: tuple[float, float] = (0.0, 0.0)
    """Stops over the exposure at which lit white paper just does not clip (range)."""


@dataclass(frozen=True)
class Paper:
    """What the mat is printed on: its white, the printed mat tone and its finish."""

    white: tuple[int, int, int] = (255, 255, 255)
    """BGR of the bare paper (the markers' quiet zones)."""
    tone: tuple[int, int, int] | None = (200, 200, 200)
    """BGR of the printed mat area; None: the mat is the bare paper."""
    gloss: float = 1.0
    """0 matte (no specular spot) to 1 glossy (a full glare spot)."""
    ink: tuple[int, int, int] = (0, 0, 0)


PROJECT_PAPER = Paper()
"""The project's own mat as `companion vision mat` prints it: grey 200 on white."""


PRESETS: dict[str, Distortions] = {
    "clean": Distortions(),
    "tilt": Distortions(tilt_deg=30),
    "rotation": Distortions(rotation_deg=180),
    "scale": Distortions(fill=(0.62, 0.97)),
    "barrel": Distortions(barrel=0.06),
    "light": Distortions(light=1.0),
    "glare": Distortions(glare=1.0),
    "shadow": Distortions(shadow=1.0),
    "noise": Distortions(noise=10.0),
    "blur": Distortions(blur=2.0),
    "jpeg": Distortions(jpeg=40),
    "jitter": Distortions(jitter_mm=3.0, jitter_deg=3.0),
}
PRESETS["table"] = Distortions(
    tilt_deg=25, rotation_deg=180, fill=(0.75, 0.97), barrel=0.03, light=0.6, glare=0.4,
    shadow=0.5, noise=4.0, blur=1.0, jpeg=70, jitter_mm=2.0, jitter_deg=2.0)
"""Everything at once at the strength of a phone held over a lit table."""
PRESETS["hard"] = Distortions(
    tilt_deg=30, rotation_deg=180, fill=(0.7, 0.95), barrel=0.04, light=0.8, glare=0.8,
    shadow=0.8, noise=6.0, blur=1.5, jpeg=60, jitter_mm=3.0, jitter_deg=3.0)
"""Everything at once near each bound: a blown-out glare can hide a whole card."""


@dataclass
class Scene:
    """A synthetic photo and what is really on the table."""

    photo: np.ndarray
    cells: dict[str, str]
    """Ground truth in the vision contract's form ("x,y" or "A1" -> value)."""
    to_photo: Callable[[np.ndarray], np.ndarray]
    """Mat millimetres (N x 2) -> photo pixels, lens distortion included."""
    placements: list[dict[str, Any]]
    """What was laid down, in order: card id/face, cell, offset and angle."""
    light: dict[str, Any] = field(default_factory=dict)
    """What the light did (:func:`vision.synth_light.light`): cast, exposure, glare."""


# Shoal layouts ---------------------------------------------------------------------

def legal_shoal(deck: dict[str, Any], rng: random.Random, cards: int = 10,
                max_cols: int = 9, max_rows: int = 6) -> list[tuple[str, int, int]]:
    """A legal Shoal play order (card id, x, y), by the Shoal engine's placement rules,
    no wider than ``max_cols`` sections and no taller than ``max_rows``."""
    by_id = load_deck(deck).cards
    for _ in range(200):
        ids = list(by_id)
        rng.shuffle(ids)
        order: list[tuple[str, int, int]] = []
        visible: dict[tuple[int, int], str] = {}
        while len(order) < cards and ids:
            for cid in list(ids):
                options = [(x, y) for x, y in placement.allowed(visible, by_id[cid])
                           if _fits(visible, x, y, max_cols, max_rows)]
                if options:
                    # hands spread their shoal more often than they stack it
                    weights = [1 + 3 * sum((x + dx, y + dy) not in visible
                                           for dx in range(2) for dy in range(2))
                               for x, y in options]
                    x, y = rng.choices(options, weights=weights)[0]
                    ids.remove(cid)
                    order.append((cid, x, y))
                    visible = placement.place(visible, by_id[cid], (x, y))
                    break
            else:
                break
        if len(order) == cards:
            return order
    raise ValueError("could not lay out a legal shoal with this deck in this space")


def _fits(visible: dict[tuple[int, int], str], x: int, y: int, max_cols: int,
          max_rows: int) -> bool:
    xs = [c[0] for c in visible] + [x, x + 1]
    ys = [c[1] for c in visible] + [y, y + 1]
    return max(xs) - min(xs) < max_cols and max(ys) - min(ys) < max_rows


def visible_layout(deck: dict[str, Any],
                   order: list[tuple[str, int, int]]) -> dict[tuple[int, int], str]:
    """The section value on top at every (x, y), normalised so min x and min y are 0."""
    by_id = load_deck(deck).cards
    visible: dict[tuple[int, int], str] = {}
    for cid, x, y in order:
        visible = placement.place(visible, by_id[cid], (x, y))
    return normalise(visible)


# Scenes ------------------------------------------------------------------------------

def _free_box(mat: MatSpec) -> tuple[float, float, float, float]:
    """The part of the mat between the marker columns, where cards may go (mm)."""
    w, h = mat.size_mm
    half = mat.marker_mm / 2 + 6
    left = max([x + half for x, _ in mat.markers.values() if x < w / 2], default=8.0)
    right = min([x - half for x, _ in mat.markers.values() if x > w / 2], default=w - 8)
    return left, 8.0, right, h - 8.0


def shoal_scene(deck: dict[str, Any], mat: MatSpec, seed: int,
                distortions: Distortions = PRESETS["clean"],
                images: dict[str, np.ndarray] | None = None, cards: int = 10,
                paper: Paper = PROJECT_PAPER) -> Scene:
    """A photo of one player's finished shoal on the mat.

    ``images`` maps card id to its face (any resolution); generated art by default.
    """
    rng = random.Random(seed)
    sw, sh = (float(v) for v in deck["section_mm"])
    left, top, right, bottom = _free_box(mat)
    max_cols = int((right - left - 2 * distortions.jitter_mm) // sw)
    max_rows = int((bottom - top - 2 * distortions.jitter_mm) // sh)
    order = legal_shoal(deck, rng, cards, max_cols, max_rows)
    x0 = min(x for _, x, _ in order)
    y0 = min(y for _, _, y in order)
    cols = max(x for _, x, _ in order) + 2 - x0
    rows = max(y for _, _, y in order) + 2 - y0
    ox = rng.uniform(left + distortions.jitter_mm, right - distortions.jitter_mm - cols * sw)
    oy = rng.uniform(top + distortions.jitter_mm, bottom - distortions.jitter_mm - rows * sh)
    by_id = {c["id"]: c for c in deck["cards"]}
    canvas = _table_canvas(mat, rng, paper)
    placements = []
    for cid, x, y in order:
        face = images[cid] if images else art.shoal_card(by_id[cid]["sections"], (sw, sh), cid)
        placement = _jittered(rng, distortions, ox + (x - x0) * sw, oy + (y - y0) * sh,
                              2 * sw, 2 * sh)
        _lay_card(canvas, face, placement)
        placements.append({"card": cid, "at": [x - x0, y - y0], **placement})
    layout = visible_layout(deck, order)
    truth = {f"{x},{y}": v for (x, y), v in sorted(layout.items())}
    return _photograph(canvas, mat, rng, distortions, truth, placements, paper)


def poodivers_scene(faces: dict[str, list[np.ndarray]], card_mm: tuple[float, float],
                    rows: tuple[str, ...], mat: MatSpec, seed: int,
                    distortions: Distortions = PRESETS["clean"], gap_mm: float = 1.5,
                    unseen_objects: float = 0.5, paper: Paper = PROJECT_PAPER,
                    unseen: Callable[[tuple[float, float], int], np.ndarray] | None = None,
                    ) -> Scene:
    """A photo of a Tokyo Poo Divers layout mid-game.

    ``faces`` maps closed/blank/sleeper/object to face images; a share ``unseen_objects``
    of the open objects are drawings that are not among them (as on a real table whose
    faces file holds only a few of the 42 objects), drawn by ``unseen(card_mm, variant)``
    (by default the generator of :func:`vision.art.write_faces`, other variants).
    """
    rng = random.Random(seed)
    cells = [(c, r) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]
    opened = rng.uniform(0.0, 0.85)
    budget = {"blank": 14, "sleeper": 14, "object": 42}
    truth: dict[tuple[int, int], str] = {}
    for cell in cells:
        face = "closed"
        if rng.random() < opened:
            face = rng.choices(["blank", "sleeper", "object"], weights=[1, 1, 3])[0]
            face = face if budget[face] > 0 else "closed"
        budget[face] = budget.get(face, 0) - 1
        truth[cell] = face
    cw, ch = card_mm
    px, py = cw + gap_mm, ch + gap_mm
    width, height = len(rows[0]) * px - gap_mm, len(rows) * py - gap_mm
    left, top, right, bottom = _free_box(mat)
    ox = rng.uniform(left, max(left, right - width))
    oy = rng.uniform(top, max(top, bottom - height))
    canvas = _table_canvas(mat, rng, paper)
    placements = []
    for (c, r), face in truth.items():
        if face == "object" and rng.random() < unseen_objects:
            variant = 1000 + rng.randrange(10**6)
            img = (unseen(card_mm, variant) if unseen
                   else art.poo_face("object", card_mm, variant))
        else:
            img = rng.choice(faces[face])
        placement = _jittered(rng, distortions, ox + c * px, oy + r * py, cw, ch)
        _lay_card(canvas, img, placement)
        placements.append({"face": face, "cell": f"{chr(65 + c)}{r + 1}", **placement})
    out = {f"{chr(65 + c)}{r + 1}": v for (c, r), v in truth.items()}
    return _photograph(canvas, mat, rng, distortions, out, placements, paper)


def spread_scene(deck: dict[str, Any], ids: list[str], mat: MatSpec, seed: int,
                 distortions: Distortions = PRESETS["clean"]) -> Scene:
    """A photo of cards laid apart in rows of three, a little crooked, as for
    ``companion vision capture-deck`` (at most nine Shoal cards on an A3 mat)."""
    rng = random.Random(seed)
    sw, sh = (float(v) for v in deck["section_mm"])
    by_id = {c["id"]: c for c in deck["cards"]}
    left, top, right, _ = _free_box(mat)
    step_x, step_y = (right - left) / 3, 2 * sh + 15
    canvas = _table_canvas(mat, rng, PROJECT_PAPER)
    placements = []
    for i, cid in enumerate(ids):
        face = art.shoal_card(by_id[cid]["sections"], (sw, sh), cid)
        x, y = left + (i % 3 + 0.5) * step_x, top + 10 + sh + (i // 3) * step_y
        placement = {"centre_mm": [x, y], "size_mm": [2 * sw, 2 * sh],
                     "angle_deg": rng.uniform(-4, 4)}
        _lay_card(canvas, face, placement)
        placements.append({"card": cid, **placement})
    return _photograph(canvas, mat, rng, distortions, {}, placements)


def _jittered(rng: random.Random, d: Distortions, x: float, y: float, w: float,
              h: float) -> dict[str, Any]:
    """Where a hand really puts a card meant for the box (x, y, w, h) in mm."""
    dx = rng.uniform(-d.jitter_mm, d.jitter_mm)
    dy = rng.uniform(-d.jitter_mm, d.jitter_mm)
    return {"centre_mm": [x + w / 2 + dx, y + h / 2 + dy], "size_mm": [w, h],
            "angle_deg": rng.uniform(-d.jitter_deg, d.jitter_deg)}


def mat_scene(mat: MatSpec, seed: int, distortions: Distortions = PRESETS["clean"],
              sheet: np.ndarray | None = None) -> Scene:
    """A photo of the bare mat; ``sheet`` is the printed image (any resolution), by
    default the mat rendered from ``mat``."""
    rng = random.Random(seed)
    return _photograph(_table_canvas(mat, rng, PROJECT_PAPER, sheet), mat, rng, distortions,
                       {}, [])


def print_mat(spec: MatSpec, paper: Paper, px_per_mm: float) -> np.ndarray:
    """The mat as printed on ``paper`` (BGR at ``px_per_mm``): the markers in ink with a
    quiet zone of bare paper a sixth of a marker wide, the rest in the paper's tone."""
    w, h = round(spec.size_mm[0] * px_per_mm), round(spec.size_mm[1] * px_per_mm)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = paper.tone if paper.tone is not None else paper.white
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    side = round(spec.marker_mm * px_per_mm)
    quiet = round(spec.marker_mm * px_per_mm / 6)
    white, ink = np.array(paper.white, np.uint8), np.array(paper.ink, np.uint8)
    for marker_id in spec.markers:
        x0, y0 = (spec.marker_corners_mm(marker_id)[0] * px_per_mm).round().astype(int)
        img[max(y0 - quiet, 0):y0 + side + quiet, max(x0 - quiet, 0):x0 + side + quiet] = white
        bits = cv2.aruco.generateImageMarker(dictionary, marker_id, side) > 127
        img[y0:y0 + side, x0:x0 + side] = np.where(bits[:, :, None], white, ink)
    return img


def _table_canvas(mat: MatSpec, rng: random.Random, paper: Paper,
                  sheet: np.ndarray | None = None) -> np.ndarray:
    """The mat on a wooden table, top-down at :data:`CANVAS_PX_PER_MM`."""
    r = CANVAS_PX_PER_MM
    w = round((mat.size_mm[0] + 2 * TABLE_MM) * r)
    h = round((mat.size_mm[1] + 2 * TABLE_MM) * r)
    wood = np.array([60, 95, 140], np.float32) * rng.uniform(0.7, 1.1)
    grain = np.sin(np.linspace(0, rng.uniform(30, 60), h))[:, None] * 12
    canvas = np.clip(wood[None, None, :] + grain[:, :, None]
                     + np.zeros((h, w, 3), np.float32), 0, 255).astype(np.uint8)
    size = (round(mat.size_mm[0] * r), round(mat.size_mm[1] * r))
    sheet = (print_mat(mat, paper, r) if sheet is None
             else cv2.resize(sheet, size, interpolation=cv2.INTER_AREA))
    b = round(TABLE_MM * r)
    canvas[b:b + sheet.shape[0], b:b + sheet.shape[1]] = sheet
    return canvas


def _lay_card(canvas: np.ndarray, face: np.ndarray, placement: dict[str, Any]) -> None:
    """Draw a card (with a soft contact shadow) onto the canvas."""
    r = CANVAS_PX_PER_MM
    cx, cy = ((v + TABLE_MM) * r for v in placement["centre_mm"])
    w, h = (v * r for v in placement["size_mm"])
    angle = placement["angle_deg"]
    rect = ((cx, cy), (w, h), angle)
    x0, y0, bw, bh = cv2.boundingRect(cv2.boxPoints(rect).astype(np.float32))
    pad = round(3 * r)
    x0, y0 = max(x0 - pad, 0), max(y0 - pad, 0)
    x1 = min(x0 + bw + 2 * pad, canvas.shape[1])
    y1 = min(y0 + bh + 2 * pad, canvas.shape[0])
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    src = np.array([[0, 0], [face.shape[1], 0], [0, face.shape[0]]], np.float32)
    a = math.radians(angle)  # the card's x axis is (ux, uy), its y axis (-uy, ux)
    ux, uy = math.cos(a), math.sin(a)
    tl = (cx - ux * w / 2 + uy * h / 2 - x0, cy - uy * w / 2 - ux * h / 2 - y0)
    tr = (tl[0] + ux * w, tl[1] + uy * w)
    bl = (tl[0] - uy * h, tl[1] + ux * h)
    m = cv2.getAffineTransform(src, np.array([tl, tr, bl], np.float32))
    size = (x1 - x0, y1 - y0)
    card = cv2.warpAffine(face, m, size, flags=cv2.INTER_AREA).astype(np.float32)
    alpha = cv2.warpAffine(np.ones(face.shape[:2], np.float32), m, size)
    shadow = cv2.GaussianBlur(np.roll(alpha, (round(0.8 * r), round(0.8 * r)), (0, 1)),
                              (0, 0), 1.2 * r)
    roi *= (1 - 0.3 * shadow)[:, :, None]
    roi = roi * (1 - alpha[:, :, None]) + card * alpha[:, :, None]
    canvas[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


def _photograph(canvas: np.ndarray, mat: MatSpec, rng: random.Random, d: Distortions,
                truth: dict[str, str], placements: list[dict[str, Any]],
                paper: Paper = PROJECT_PAPER) -> Scene:
    lit, lighting = light(canvas, rng, d, CANVAS_PX_PER_MM, paper.gloss)
    for key in ("spot_mm", "veil_mm"):  # canvas millimetres -> the mat's
        if key in lighting:
            lighting[key] = [round(v - TABLE_MM, 1) for v in lighting[key]]
    h_img = camera(mat.size_mm, rng, d.tilt_deg, d.rotation_deg, d.fill)
    k = rng.uniform(0.0, d.barrel)
    to_canvas_mm = np.array([[1 / CANVAS_PX_PER_MM, 0, -TABLE_MM],
                             [0, 1 / CANVAS_PX_PER_MM, -TABLE_MM], [0, 0, 1]])
    m = h_img @ to_canvas_mm
    w, h = PHOTO_SIZE
    if k == 0.0:
        photo = cv2.warpPerspective(lit, m, PHOTO_SIZE, flags=cv2.INTER_AREA,
                                    borderMode=cv2.BORDER_REPLICATE)
    else:
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        und = undistort(np.stack([xs.ravel(), ys.ravel()], 1), k)
        src = cv2.perspectiveTransform(und.reshape(-1, 1, 2).astype(np.float64),
                                       np.linalg.inv(m)).reshape(h, w, 2).astype(np.float32)
        photo = cv2.remap(lit, src[..., 0], src[..., 1], cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    if d.blur:
        photo = cv2.GaussianBlur(photo, (0, 0), rng.uniform(0.3, d.blur))
    if d.noise:
        noise = np.random.default_rng(rng.randrange(2**32)).normal(
            0, rng.uniform(0.3, 1.0) * d.noise, photo.shape)
        photo = np.clip(photo + noise, 0, 255).astype(np.uint8)
    if d.jpeg < 100:
        quality = rng.randint(d.jpeg, 95)
        _, buf = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, quality])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        photo = photo if decoded is None else decoded

    def to_photo(points_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return distort(cv2.perspectiveTransform(pts, h_img).reshape(-1, 2), k)

    return Scene(photo, truth, to_photo, placements, lighting)
