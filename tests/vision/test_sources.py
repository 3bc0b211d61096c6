"""Camera sources: folders and files (as the tests' camera), and clear failures."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import Capture, ImageFolder, SourceError, open_source


def _write(folder: Path, names: list[str]) -> None:
    for i, name in enumerate(names):
        cv2.imwrite(str(folder / name), np.full((20, 30, 3), 10 * (i + 1), np.uint8))


def test_a_folder_replays_its_images_in_name_order(tmp_path: Path) -> None:
    _write(tmp_path, ["b.png", "a.png", "c.jpg"])
    (tmp_path / "notes.txt").write_text("not a frame")
    source = open_source(str(tmp_path))
    assert isinstance(source, ImageFolder)
    firsts = [int(source.read()[0, 0, 0]) for _ in range(3)]
    assert firsts == [20, 10, 30]  # a.png, b.png, c.jpg
    with pytest.raises(SourceError, match=r"all 3 images of .* were read"):
        source.read()
    looping = ImageFolder(tmp_path, loop=True)
    assert [int(looping.read()[0, 0, 0]) for _ in range(4)] == [20, 10, 30, 20]


def test_an_image_file_is_the_same_photo_every_time(tmp_path: Path) -> None:
    _write(tmp_path, ["table.png"])
    source = open_source(str(tmp_path / "table.png"))
    assert np.array_equal(source.read(), source.read())
    source.close()


def test_a_phone_sized_photo_file_is_read_as_a_reader_needs_it(tmp_path: Path) -> None:
    """A 12 Mpx photo given as the camera is decoded at half size, as an upload is."""
    cv2.imwrite(str(tmp_path / "phone.jpg"), np.full((3024, 4032, 3), 90, np.uint8))
    assert open_source(str(tmp_path / "phone.jpg")).read().shape == (1512, 2016, 3)


def test_missing_cameras_and_sources_say_what_to_check(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="camera 97 cannot be opened: is it plugged in"):
        open_source("97")
    with pytest.raises(SourceError, match="camera /dev/video97 cannot be opened"):
        open_source("/dev/video97")
    with pytest.raises(SourceError, match="no camera, stream, folder or image 'nowhere'"):
        open_source("nowhere")
    with pytest.raises(SourceError, match="no images in"):
        open_source(str(tmp_path))


def test_a_video_stream_gives_frames_until_it_ends(tmp_path: Path) -> None:
    """A recorded MJPEG file through the same VideoCapture path as a camera or URL."""
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (640, 480))
    noise = np.random.default_rng(0).integers(0, 60, (480, 640, 3), dtype=np.uint8)
    for i in range(250):
        frame = noise.copy()
        frame[:40, :40] = 5 + i  # the frame's number, readable after JPEG
        writer.write(frame)
    writer.release()
    source = Capture(str(path))
    try:
        first = int(source.read()[10:30, 10:30].mean())
        second = int(source.read()[10:30, 10:30].mean())
        assert first < second  # each read is a newer frame
        with pytest.raises(SourceError, match="stopped sending frames"):
            for _ in range(1000):
                source.read()
    finally:
        source.close()
