"""Faults at the service: a GPIO pin that cannot be opened at start, a clapper box
plugged in after the service started, a camera gone mid-read, a photo that would blow up
once decoded. The service goes on each time."""

from __future__ import annotations

import io
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient

from companion.hardware.virtual_box import VirtualBox
from tests.hardware.busy_pins import plugin_env
from tests.support.images import png_bomb
from tests.web.conftest import PIN, Server
from web.app import create_app


def call(server: Server, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.url + path, data=data, method=method,
                                 headers={"X-Table-Pin": PIN,
                                          "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_a_busy_gpio_pin_at_start_falls_back_to_the_browser_timer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in plugin_env(tmp_path / "plugin", 27).items():
        monkeypatch.setenv(key, value)  # gpiozero's MockFactory, BCM 27 held elsewhere
    server = Server(tmp_path, "--timer", "gpio")
    try:
        said = "".join(server.lines)
        assert "cannot use BCM 27 for the STOP button: GPIO27 is busy" in said
        assert "using the browser timer instead" in said
        code, status = call(server, "GET", "/api/timer")
        assert code == 200 and status["backend"] == "browser" and status["state"] == "idle"
        code, game = call(server, "POST", "/api/games",
                          {"game": "drshark", "players": ["Ann", "Ben"], "options": {}})
        assert code in (200, 201), game
        code, status = call(server, "POST", "/api/timer/start")
        assert code == 200 and status["state"] == "running", status
        assert status["session"] == game["id"]
        code, state = call(server, "GET", f"/api/games/{game['id']}")
        assert code == 200 and state["seq"] == 1  # start_search logged
    finally:
        server.stop()
    assert "Traceback" not in "".join(server.lines)


def test_a_clapper_box_plugged_in_after_the_service_started_is_used(tmp_path: Path) -> None:
    link = tmp_path / "clapperbox"
    server = Server(tmp_path, "--timer", f"serial:{link}")
    try:
        said = "".join(server.lines)
        assert f"cannot open the clapper box at {link}" in said
        assert "the timer uses the box as soon as it answers" in said
        code, status = call(server, "GET", "/api/timer")
        assert code == 200 and status["backend"] == "serial"  # no browser fallback
        assert status["device"]["connection"] == "reconnecting"
        with VirtualBox(link):
            until = time.monotonic() + 10
            while status["device"]["connection"] != "connected":
                assert time.monotonic() < until, status
                time.sleep(0.05)
                code, status = call(server, "GET", "/api/timer")
            assert status["device"]["firmware"] == "1.0"
    finally:
        server.stop()
    assert "Traceback" not in "".join(server.lines)


def upload(client: FlaskClient, photo: bytes | None) -> Any:
    data: dict[str, Any] = {"game": "shoal"}
    if photo is not None:
        data["photo"] = (io.BytesIO(photo), "table.png")
    return client.post("/api/vision/read", headers={"X-Table-Pin": PIN},
                       content_type="multipart/form-data", data=data)


def test_a_camera_gone_mid_read_is_a_clear_error_and_the_service_goes_on(
        table: Any, tmp_path: Path) -> None:
    camera = tmp_path / "camera"
    camera.mkdir()
    frame = camera / "frame.png"
    cv2.imwrite(str(frame), np.full((300, 400, 3), 200, np.uint8))
    client = create_app(table, {"TABLE_PIN": PIN, "SECRET_KEY": "t",
                                "CAMERA": str(camera)}).test_client()
    seen = upload(client, None)  # the camera works (the reader then wants card pictures)
    assert seen.status_code == 422 and "has no image for card" in seen.get_json()["error"]
    frame.unlink()  # the camera's card pulled out
    gone = upload(client, None)
    assert gone.status_code == 422
    assert f"no images in {camera}" in gone.get_json()["error"]
    camera.rmdir()
    gone = upload(client, None)
    assert gone.status_code == 422 and "no camera, stream, folder or image" in \
        gone.get_json()["error"]
    assert client.get("/healthz").status_code == 200
    bomb = upload(client, png_bomb())  # an upload still works, and a bomb is refused
    assert bomb.status_code == 422
    assert "20000 x 20000 pixels" in bomb.get_json()["error"]
    assert client.get("/healthz").status_code == 200
