"""Errors as JSON: every 4xx and 5xx of the API is ``{"error": message}``, never HTML."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

log = logging.getLogger("companion.web")

MESSAGES = {
    400: "the request could not be read",
    404: "there is nothing here",
    405: "this address does not take that method",
    413: "the upload is too large",
    415: "send JSON (Content-Type: application/json)",
}


class ApiError(Exception):
    """A request the API refuses, with the status and a message a player can act on."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


def json_body(allowed: Iterable[str], required: Iterable[str] = ()) -> dict[str, Any]:
    """The request's JSON object, checked: only ``allowed`` keys, ``required`` present."""
    if not request.is_json:
        raise ApiError(415, MESSAGES[415])
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    extra = sorted(set(body) - set(allowed))
    if extra:
        raise ApiError(400, f"unexpected field {extra[0]!r}: this takes "
                            f"{', '.join(sorted(allowed)) or 'no fields'}")
    for key in required:
        if key not in body:
            raise ApiError(400, f"missing field {key!r}")
    return body


def optional_json_body(allowed: Iterable[str]) -> dict[str, Any]:
    """Like :func:`json_body`, but an empty body means ``{}``."""
    if not request.get_data(cache=True):
        return {}
    return json_body(allowed)


def register(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(err: ApiError) -> Any:
        return jsonify(error=err.message, **err.extra), err.status

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> Any:
        status = err.code or 500
        message = MESSAGES.get(status) or (err.description or err.name)
        if status == 413:
            limit = app.config.get("MAX_CONTENT_LENGTH") or 0
            message = f"the upload is too large: at most {limit // (1024 * 1024)} MB"
        return jsonify(error=message), status

    @app.errorhandler(Exception)
    def crash(err: Exception) -> Any:
        log.exception("unexpected error on %s %s", request.method, request.path)
        return jsonify(error="the companion hit an internal error; the game is unchanged "
                             "unless the page says otherwise"), 500
