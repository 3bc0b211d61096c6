"""Where photos come from: one small interface over cameras, streams and files.

``open_source(spec)`` understands:

- ``"picamera"``: a Raspberry Pi camera module through Picamera2 (when installed);
- ``"0"``, ``"/dev/video0"``: a V4L2 camera (USB webcam) through ``cv2.VideoCapture``;
- ``"http://…"``, ``"rtsp://…"``: an MJPEG or RTSP stream (IP camera, phone app);
- a folder: its images replayed in name order (what tests use);
- an image file: that photo, every time.

Every source's :meth:`~Source.read` returns the newest frame as BGR, never one that sat in
a buffer, and raises :class:`SourceError` with a message that says what to check.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from vision import images
from vision.errors import VisionError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
TIMEOUT_S = 5.0


class SourceError(VisionError):
    """A camera that is missing, busy or silent, or a stream or file that cannot be read."""


class Source(Protocol):
    name: str

    def read(self) -> np.ndarray:
        """The newest frame (BGR)."""
        ...

    def close(self) -> None: ...


class ImageFile:
    """One photo, returned by every read."""

    def __init__(self, path: Path) -> None:
        self.name = str(path)
        self.path = Path(path)

    def read(self) -> np.ndarray:
        try:
            return images.load_photo(self.path)  # a file gone or cut short says so
        except SourceError:
            raise
        except VisionError as err:
            raise SourceError(str(err)) from None

    def close(self) -> None:
        pass


class ImageFolder:
    """The images of a folder, one per read in name order; ``loop`` starts over at the end."""

    def __init__(self, folder: Path, loop: bool = False) -> None:
        self.name = str(folder)
        self.files = sorted(p for p in Path(folder).iterdir()
                            if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"no images in {folder} (looked for "
                              f"{', '.join(IMAGE_SUFFIXES)})")
        self.loop = loop
        self.index = 0

    def read(self) -> np.ndarray:
        if self.index >= len(self.files):
            if not self.loop:
                raise SourceError(f"all {len(self.files)} images of {self.name} were read")
            self.index = 0
        path = self.files[self.index]
        self.index += 1
        return ImageFile(path).read()

    def close(self) -> None:
        pass


class Capture:
    """A camera or stream through ``cv2.VideoCapture``.

    A thread keeps grabbing frames so the driver's buffer never holds old ones; ``read``
    returns a frame grabbed after it was called.
    """

    def __init__(self, device: int | str, size: tuple[int, int] | None = None) -> None:
        self.name = str(device)
        self.cap = cv2.VideoCapture(device)
        if not self.cap.isOpened():
            self.cap.release()
            raise SourceError(f"camera {device} cannot be opened: is it plugged in, and not "
                              "used by another program (close it, or check `v4l2-ctl "
                              "--list-devices`)?" if isinstance(device, int) or
                              str(device).startswith("/dev/") else
                              f"the stream {device} cannot be opened: check the address "
                              "and that the camera is on the network")
        self.cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        if size:
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._frame: np.ndarray | None = None
        self._count = 0
        self._failed = False
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._grab, name=f"camera {device}", daemon=True)
        self._thread.start()

    def _grab(self) -> None:
        while not self._closed:
            ok, frame = self.cap.read()
            with self._cond:
                if ok:
                    self._frame, self._count = frame, self._count + 1
                else:
                    self._failed = True
                self._cond.notify_all()
            if not ok:
                return

    def read(self) -> np.ndarray:
        with self._cond:
            seen = self._count
            self._cond.wait_for(lambda: self._count > seen or self._failed, TIMEOUT_S)
            if self._count > seen and self._frame is not None:
                return self._frame.copy()
            if self._failed:
                raise SourceError(f"{self.name} stopped sending frames (unplugged, or the "
                                  "stream ended)")
            raise SourceError(f"{self.name} sent no frame in {TIMEOUT_S:g} s: is the camera "
                              "busy or covered?")

    def close(self) -> None:
        self._closed = True
        self._thread.join(TIMEOUT_S)
        self.cap.release()


class PiCamera:
    """A Raspberry Pi camera module through Picamera2 (``apt install python3-picamera2``)."""

    def __init__(self, size: tuple[int, int] = (1600, 1200)) -> None:
        self.name = "picamera"
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise SourceError("Picamera2 is not installed: on Raspberry Pi OS run `sudo apt "
                              "install python3-picamera2` and create the virtualenv with "
                              "--system-site-packages") from None
        try:
            self.cam: Any = Picamera2()
            # libcamera's "RGB888" is laid out B, G, R in memory: OpenCV's order
            self.cam.configure(self.cam.create_still_configuration(
                main={"size": size, "format": "RGB888"}))
            self.cam.start()
        except (RuntimeError, IndexError, OSError) as err:
            raise SourceError(f"the Pi camera cannot be started ({err}): is the ribbon "
                              "cable seated, and no other program using the camera?") from None

    def read(self) -> np.ndarray:
        # capture_array waits for the next completed frame
        frame: np.ndarray = self.cam.capture_array("main")
        return frame

    def close(self) -> None:
        self.cam.stop()
        self.cam.close()


def open_source(spec: str) -> Source:
    """Open a source named as in the module docs."""
    if spec in ("picamera", "pi"):
        return PiCamera()
    if spec.isdigit():
        return Capture(int(spec))
    if spec.startswith(("http://", "https://", "rtsp://", "/dev/")):
        return Capture(spec)
    path = Path(spec)
    if path.is_dir():
        return ImageFolder(path)
    if path.is_file():
        return ImageFile(path) if path.suffix.lower() in IMAGE_SUFFIXES else Capture(spec)
    raise SourceError(f"no camera, stream, folder or image {spec!r}: give a camera index "
                      "(0), a device (/dev/video0), picamera, a stream URL, a folder or a photo")
