"""``POST /api/vision/read``: a photo of the table in, the vision contract's object out.

The photo comes as a multipart upload (field ``photo``) with the ``game`` (``shoal`` or
``poodivers``) and, for Tokyo Poo Divers, the ``layout``. The reading itself is the
``vision`` package's; this route checks the upload and says clearly when the reader or
its files (deck, faces, mat) are missing.
"""

from __future__ import annotations

import importlib
from typing import Any

from flask import Blueprint, current_app, jsonify, request

from web.auth import require_pin
from web.errors import ApiError

bp = Blueprint("camera", __name__)

GAMES = ("shoal", "poodivers")
IMAGE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"BM", b"RIFF")
FIELDS = {"game", "layout"}
READER = "vision.readers"
"""The module that reads photos (the vision package's)."""


def _photo() -> bytes:
    unknown = sorted(set(request.form) - FIELDS)
    if unknown:
        raise ApiError(400, f"unexpected field {unknown[0]!r}: send photo, game and layout")
    upload = request.files.get("photo")
    if upload is None:
        raise ApiError(400, "no photo: send the picture in the field \"photo\"")
    data = upload.read()
    if not data:
        raise ApiError(400, "the photo is empty")
    if not data.startswith(IMAGE_MAGIC):
        raise ApiError(400, "the photo is not a JPEG, PNG, BMP or WebP image")
    return data


def reader() -> Any:
    """The vision package's reader module, or a 503 saying it is missing."""
    try:
        return importlib.import_module(READER)
    except ImportError as err:
        raise ApiError(503, f"camera reading is not available in this install ({err})") \
            from None


@bp.post("/api/vision/read")
@require_pin
def read() -> Any:
    if not request.mimetype.startswith("multipart/form-data"):
        raise ApiError(415, "send the photo as multipart/form-data (field \"photo\")")
    game = request.form.get("game", "")
    if game not in GAMES:
        raise ApiError(400, f"\"game\" is one of {', '.join(GAMES)}, not {game!r}")
    photo = _photo()
    layout = request.form.get("layout", "square")
    module = reader()
    files = current_app.config.get("VISION", {})
    try:
        result = module.read_photo(game, photo, layout=layout, **files)
    except (ValueError, OSError) as err:
        raise ApiError(422, str(err)) from None
    return jsonify(result)
