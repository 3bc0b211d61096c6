"""The camera gone mid-read, and bad photos through ``companion vision read``: each ends in
one line saying what to do and exit 2, never a traceback."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from tests.support.images import encoded, jpeg_bomb, png_bomb
from vision.sources import ImageFile, ImageFolder, SourceError, open_source


def _frames(folder: Path, count: int) -> list[Path]:
    folder.mkdir(exist_ok=True)
    paths = [folder / f"frame{i}.jpg" for i in range(count)]
    for i, path in enumerate(paths):
        cv2.imwrite(str(path), np.full((30, 40, 3), 20 * (i + 1), np.uint8))
    return paths


def test_a_folder_whose_files_vanish_mid_read(tmp_path: Path) -> None:
    frames = _frames(tmp_path / "camera", 3)
    source = open_source(str(tmp_path / "camera"))
    assert isinstance(source, ImageFolder)
    assert int(source.read()[0, 0, 0]) == 20
    for path in frames[1:]:
        path.unlink()  # the card reader was pulled out
    with pytest.raises(SourceError, match=r"no image at .*frame1\.jpg \(was it moved or "
                                          r"deleted\?\)"):
        source.read()
    shutil.rmtree(tmp_path / "camera")  # the whole folder gone
    with pytest.raises(SourceError, match=r"frame2\.jpg"):
        source.read()


def test_a_photo_file_cut_short_while_being_written(tmp_path: Path) -> None:
    (frame,) = _frames(tmp_path, 1)
    source = ImageFile(frame)
    assert source.read().shape == (30, 40, 3)
    whole = frame.read_bytes()
    frame.write_bytes(whole[: len(whole) // 2])  # the camera app is still saving it
    with pytest.raises(SourceError, match=r"frame0\.jpg is cut short .*again"):
        source.read()
    frame.write_bytes(whole)
    assert source.read().shape == (30, 40, 3)  # and reads again once it is whole


def test_a_video_source_that_stops_says_so_and_closes(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for i in range(3):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    source = open_source(str(path))  # through cv2.VideoCapture, as a camera or stream
    try:
        with pytest.raises(SourceError, match=r"stopped sending frames \(unplugged"):
            for _ in range(10):
                source.read()
    finally:
        source.close()


BAD_PHOTOS = {
    "noise.jpg": (lambda: bytes(np.random.default_rng(1).integers(0, 256, 5000,
                                                                  dtype=np.uint8)),
                  "is not an image OpenCV can read"),
    "half.jpg": (lambda: encoded(".jpg", 640, 480)[:9000], "is cut short"),
    "dot.png": (lambda: encoded(".png", 1, 1), "no markers found: is the mat in view"),
    "bomb.png": (png_bomb, r"20000 x 20000 pixels .*scale the photo down"),
    "bomb.jpg": (jpeg_bomb, r"20000 x 20000 pixels .*scale the photo down"),
    "empty.jpg": (lambda: b"", "is empty"),
}


@pytest.mark.parametrize("name", sorted(BAD_PHOTOS))
@pytest.mark.parametrize("game", ["shoal", "poodivers"])
def test_bad_photos_exit_2_with_one_line(name: str, game: str, tmp_path: Path,
                                         deck_dir: Path, faces_dir: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    make, message = BAD_PHOTOS[name]
    photo = tmp_path / name
    photo.write_bytes(make())
    kit = (["--deck", str(deck_dir)] if game == "shoal"
           else ["--faces", str(faces_dir), "--layout", "square"])
    assert main(["vision", "read", game, str(photo), *kit, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert re.search(message, captured.err), captured.err


def test_a_bomb_through_the_real_command(tmp_path: Path, deck_dir: Path) -> None:
    """As a user runs it: a separate process, refused at once, no traceback."""
    photo = tmp_path / "bomb.png"
    photo.write_bytes(png_bomb())
    done = subprocess.run([sys.executable, "-m", "companion.cli", "vision", "read", "shoal",
                           str(photo), "--deck", str(deck_dir), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "bomb.png is 20000 x 20000 pixels (400 Mpx)" in done.stderr
    assert "Traceback" not in done.stderr
