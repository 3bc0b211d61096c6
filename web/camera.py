"""``POST /api/vision/read``: a photo of the table in, the vision contract's object out.

The photo comes as a multipart upload (field ``photo``) with the ``game`` (``shoal`` or
``poodivers``) and, for Tokyo Poo Divers, the ``layout`` (a name or the rows as JSON);
without a photo the companion's own camera (``--camera``) takes one. The reading is the ``vision``
package's, with the deck, faces and mat files of the ``[vision]`` settings (the shipped
Shoal deck and the project's A3 mat by default). The answer is the contract's ``{game,
cells, confidence, ms}`` plus ``overlay``: the photo with every recognised cell
outlined, as a JPEG data URL, for the players to compare with the layout on screen;
each unsure cell (``unsure``: its candidates and boxes, :mod:`vision.reading`) gets
``crop``, its picture as a JPEG data URL, shown beside the values it could be. Readers
are built once per set of files and read with one thread (:mod:`vision.threads`).
"""

from __future__ import annotations

import base64
import importlib
import importlib.util
import json
import threading
from functools import cache
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, jsonify, request

from companion import games
from web.auth import require_pin
from web.errors import ApiError

bp = Blueprint("camera", __name__)

IMAGE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"BM", b"RIFF")
FIELDS = {"game", "layout"}
OVERLAY_WIDTH = 1200
CROP_WIDTH = 240
_reading = threading.Lock()   # one reading at a time: a Pi has few cores to share


def camera_games() -> list[str]:
    """The games of the registry that photos can be read for: those vision has a reader
    module of the game's name for."""
    try:
        return [n for n in games.available() if importlib.util.find_spec(f"vision.{n}")]
    except ImportError:
        return []


def _vision() -> Any:
    """The vision modules, imported at the first photo (OpenCV takes a while to load)."""
    return {name: importlib.import_module(f"vision.{name}") for name in
            ("decks", "errors", "images", "mat", "matching", "poodivers", "shoal",
             "sources")}


def _upload() -> bytes | None:
    unknown = sorted(set(request.form) - FIELDS)
    if unknown:
        raise ApiError(400, f"unexpected field {unknown[0]!r}: send photo, game and layout")
    upload = request.files.get("photo")
    if upload is None:
        return None
    data = upload.read()
    if not data:
        raise ApiError(400, "the photo is empty")
    if not data.startswith(IMAGE_MAGIC):
        raise ApiError(400, "the photo is not a JPEG, PNG, BMP or WebP image")
    return data


def _decode(v: Any, data: bytes) -> Any:
    """The uploaded photo, sized from its header first: a decompression bomb or a file cut
    short is refused (``VisionError``) before anything is decoded; a larger photo than a
    reader needs is decoded smaller (:func:`vision.images.decode_photo`)."""
    return v["images"].decode_photo(data, "the photo")


def _camera_photo(v: Any) -> Any:
    camera = v["sources"].open_source(str(current_app.config["CAMERA"]))
    try:
        return camera.read()
    finally:
        camera.close()


@cache
def _shoal_reader(deck: str | None, mat: str | None) -> Any:
    """The Shoal reader of the configured files, built once (templates and margins)."""
    from vision.shoal import ShoalReader

    return ShoalReader.from_files(Path(deck) if deck else None, Path(mat) if mat else None)


@cache
def _poo_reader(faces: str, mat: str | None, rows: tuple[str, ...]) -> Any:
    from vision.poodivers import PooDiversReader

    return PooDiversReader.from_files(Path(faces), Path(mat) if mat else None, rows)


def _read(v: Any, game: str, photo: Any, layout: str) -> Any:
    files = current_app.config.get("VISION") or {}
    if game == "shoal":
        return _shoal_reader(files.get("deck"), files.get("mat")).read(photo)
    if not files.get("faces"):
        raise ApiError(503, "reading Tokyo Poo Divers needs the card faces: set faces "
                            "under [vision] in config.toml (see `companion vision`)")
    from companion.engine import BadSetup
    from companion.games.poodivers.layout import rows_of
    try:
        rows = rows_of(_layout_option(layout))
    except BadSetup as err:
        raise ApiError(400, str(err)) from None
    return _poo_reader(files["faces"], files.get("mat"), tuple(rows)).read(photo)


def _layout_option(text: str) -> object:
    """A layout field: a name (``square``) or the rows as a JSON list."""
    if text.strip().startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise ApiError(400, "layout is a name such as \"square\" or a JSON list of "
                                "rows") from None
    return text


def _jpeg_url(picture: Any, width: int) -> str:
    """A picture as a JPEG data URL, no wider than ``width``."""
    import cv2

    height, w = picture.shape[:2]
    if w > width:
        picture = cv2.resize(picture, (width, max(1, round(height * width / w))),
                             interpolation=cv2.INTER_AREA)
    ok, jpeg = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode() if ok else ""


def _overlay(reading: Any, photo: Any) -> str:
    return _jpeg_url(reading.overlay(photo), OVERLAY_WIDTH)


def _crops(reading: Any, out: dict[str, Any]) -> None:
    """Give each unsure cell its picture: the cell straightened from the photo, for the
    players to compare with the values it could be."""
    for entry in out.get("unsure", []):
        crop = reading.crop(entry["cell"])
        if crop.size:
            entry["crop"] = _jpeg_url(crop, CROP_WIDTH)


@bp.post("/api/vision/read")
@require_pin
def read() -> Any:
    if not request.mimetype.startswith("multipart/form-data"):
        raise ApiError(415, "send the photo as multipart/form-data (field \"photo\")")
    game = request.form.get("game", "")
    readable = camera_games()
    if game not in readable:
        raise ApiError(400, f"\"game\" is one of {', '.join(readable)}, not {game!r}")
    data = _upload()
    if data is None and not current_app.config.get("CAMERA"):
        raise ApiError(400, "no photo: send the picture in the field \"photo\" (this "
                            "companion has no camera: start it with --camera)")
    v = _vision()
    try:
        with _reading:
            photo = _decode(v, data) if data is not None else _camera_photo(v)
            reading = _read(v, game, photo, request.form.get("layout", "square"))
            out = reading.to_json()
            out["overlay"] = _overlay(reading, photo)
            _crops(reading, out)
    except v["errors"].VisionError as err:
        raise ApiError(422, str(err)) from None
    return jsonify(out)
