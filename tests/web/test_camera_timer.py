"""Uploads to ``/api/vision/read`` and the timer routes when no timer is open."""

from __future__ import annotations

import io
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.web.conftest import PIN
from vision.images import load as read_image
from web.app import create_app

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def upload(writer: Any, photo: bytes | None = b"", **form: str) -> Any:
    data: dict[str, Any] = dict(form)
    if photo is not None:
        data["photo"] = (io.BytesIO(photo), "table.png")
    return writer("post", "/api/vision/read", data=data,
                  content_type="multipart/form-data")


def test_upload_validation(client: FlaskClient, writer: Any) -> None:
    no_pin = client.post("/api/vision/read", data={"game": "shoal"})
    assert no_pin.status_code == 401
    assert upload(writer, PNG, game="chess").status_code == 400
    missing = upload(writer, None, game="shoal")
    assert missing.status_code == 400 and "photo" in missing.get_json()["error"]
    assert upload(writer, b"", game="shoal").status_code == 400
    text = upload(writer, b"hello, not a picture", game="shoal")
    assert text.status_code == 400 and "not a JPEG" in text.get_json()["error"]
    extra = upload(writer, PNG, game="shoal", colour="red")
    assert extra.status_code == 400
    as_json = writer("post", "/api/vision/read", json={"game": "shoal"})
    assert as_json.status_code == 415


def test_oversize_upload_is_refused_as_json(app: Any, writer: Any) -> None:
    limit = app.config["MAX_CONTENT_LENGTH"]
    res = upload(writer, b"\xff\xd8\xff" + b"\0" * limit, game="shoal")
    assert res.status_code == 413 and res.is_json
    assert "too large" in res.get_json()["error"]


def test_timer_routes_without_a_timer(client: FlaskClient, writer: Any) -> None:
    assert client.get("/api/timer").status_code == 503
    res = writer("post", "/api/timer/start")
    assert res.status_code == 503 and "timer" in res.get_json()["error"]


@pytest.fixture(scope="module")
def deck_dir(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The shipped Shoal deck with generated card images (the vision package's art)."""
    from companion.games.shoal.deck import load_deck
    from vision import art

    folder = tmp_path_factory.mktemp("deck")
    art.write_deck(folder, load_deck("default").to_json())
    return folder


def read_client(table: Any, deck_dir: Any, tmp_path: Any,
                monkeypatch: pytest.MonkeyPatch) -> FlaskClient:
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    app = create_app(table, {"TABLE_PIN": PIN, "SECRET_KEY": "t",
                             "VISION": {"deck": str(deck_dir)}})
    return app.test_client()


def send(client: FlaskClient, jpeg: bytes) -> Any:
    return client.post("/api/vision/read", headers={"X-Table-Pin": PIN},
                       content_type="multipart/form-data",
                       data={"game": "shoal", "photo": (io.BytesIO(jpeg), "shoal.jpg")})


def test_reads_a_photo_of_a_shoal(table: Any, deck_dir: Any, tmp_path: Any,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import cv2

    from companion.games.shoal.deck import load_deck
    from vision import mat, synth

    scene = synth.shoal_scene(load_deck("default").to_json(), mat.standard("A3"), 7,
                              synth.PRESETS["clean"])
    ok, jpeg = cv2.imencode(".jpg", scene.photo, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    res = send(read_client(table, deck_dir, tmp_path, monkeypatch), jpeg.tobytes())
    body = res.get_json()
    assert res.status_code == 200, body
    assert body["game"] == "shoal" and body["cells"] == scene.cells
    assert set(body["confidence"]) == set(scene.cells) and body["ms"] >= 0
    assert body["overlay"].startswith("data:image/jpeg;base64,")


def test_a_phone_sized_photo_is_read_decoded_smaller(table: Any, deck_dir: Any,
                                                     tmp_path: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A phone camera's own 4032 x 3024 JPEG, as the dashboard's file input hands it
    over, reaches the reader decoded at half size (2016 x 1512: still more than the 1600
    pixels a reader needs, :func:`vision.images.decode_photo`), and reads the same."""
    import cv2

    from companion.games.shoal.deck import load_deck
    from vision import mat, synth
    from vision.shoal import ShoalReader

    scene = synth.shoal_scene(load_deck("default").to_json(), mat.standard("A3"), 7,
                              synth.PRESETS["clean"])
    big = cv2.resize(scene.photo, (4032, 3024), interpolation=cv2.INTER_CUBIC)
    ok, jpeg = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    shapes: list[tuple[int, ...]] = []
    read = ShoalReader.read

    def seen(self: ShoalReader, photo: Any) -> Any:
        shapes.append(photo.shape)
        return read(self, photo)

    monkeypatch.setattr(ShoalReader, "read", seen)
    res = send(read_client(table, deck_dir, tmp_path, monkeypatch), jpeg.tobytes())
    assert res.status_code == 200, res.get_json()
    assert shapes == [(1512, 2016, 3)]
    assert res.get_json()["cells"] == scene.cells


def test_a_photo_without_the_mat_says_what_to_do(table: Any, deck_dir: Any, tmp_path: Any,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import cv2
    import numpy as np

    ok, jpeg = cv2.imencode(".jpg", np.full((300, 400, 3), 200, np.uint8))
    assert ok
    res = send(read_client(table, deck_dir, tmp_path, monkeypatch), jpeg.tobytes())
    assert res.status_code == 422 and "mat" in res.get_json()["error"]


def test_reads_a_photo_of_a_poo_divers_grid(table: Any, tmp_path: Any,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import cv2

    from vision import art, mat, synth
    from vision.decks import load_faces

    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    art.write_faces(tmp_path / "faces")
    faces = load_faces(tmp_path / "faces")
    images = {k: [read_image(p) for p in v] for k, v in faces.faces.items()}
    rows = ("########",) * 7 + ("###..###",)     # 62 cards
    scene = synth.poodivers_scene(images, faces.card_mm, rows, mat.standard("A3"), 3,
                                  unseen_objects=0.0)
    ok, jpeg = cv2.imencode(".jpg", scene.photo, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    app = create_app(table, {"TABLE_PIN": PIN, "SECRET_KEY": "t",
                             "VISION": {"faces": str(tmp_path / "faces")}})
    res = app.test_client().post(
        "/api/vision/read", headers={"X-Table-Pin": PIN}, content_type="multipart/form-data",
        data={"game": "poodivers", "layout": json.dumps(rows),
              "photo": (io.BytesIO(jpeg.tobytes()), "grid.jpg")})
    body = res.get_json()
    assert res.status_code == 200, body
    assert body["game"] == "poodivers" and body["cells"] == scene.cells
    bad = app.test_client().post(
        "/api/vision/read", headers={"X-Table-Pin": PIN}, content_type="multipart/form-data",
        data={"game": "poodivers", "layout": "[not json",
              "photo": (io.BytesIO(jpeg.tobytes()), "grid.jpg")})
    assert bad.status_code == 400


def test_without_an_upload_the_companions_camera_takes_the_photo(
        table: Any, deck_dir: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import cv2

    from companion.games.shoal.deck import load_deck
    from vision import mat, synth

    scene = synth.shoal_scene(load_deck("default").to_json(), mat.standard("A3"), 9,
                              synth.PRESETS["clean"])
    still = tmp_path / "camera.png"
    cv2.imwrite(str(still), scene.photo)          # an image file is a camera source too
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path / "cache"))
    app = create_app(table, {"TABLE_PIN": PIN, "SECRET_KEY": "t", "CAMERA": str(still),
                             "VISION": {"deck": str(deck_dir)}})
    res = app.test_client().post("/api/vision/read", headers={"X-Table-Pin": PIN},
                                 content_type="multipart/form-data", data={"game": "shoal"})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["cells"] == scene.cells
