"""``companion doctor``'s vision checks: the configured camera gives a photo, and the mat
is in view in it (imported by :mod:`companion.doctor` when the doctor runs)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from companion.doctor import Check, Finding, Setup, problem, well
from vision import mat as mats
from vision import sources
from vision.errors import VisionError


def check_camera(setup: Setup) -> Iterable[Finding]:
    camera = setup.settings.camera
    if not camera:
        yield well("camera", "no camera configured: photos are sent from phones "
                   "(camera = \"0\" in config.toml, or --camera, to use one)")
        return
    try:
        source = sources.open_source(camera)
        try:
            photo = source.read()
        finally:
            source.close()
    except VisionError as err:
        yield problem("camera", str(err),
                      "plug the camera in (a Pi camera: the ribbon cable), close other "
                      "programs using it, and check camera in config.toml; "
                      "`v4l2-ctl --list-devices` lists USB cameras")
        return
    height, width = photo.shape[:2]
    yield well("camera", f"{camera}: a {width}x{height} photo")
    mat_file = setup.settings.vision.get("mat")
    try:
        spec = mats.mat_of(Path(str(mat_file)) if mat_file else None)
        view = mats.detect(spec, photo)
    except VisionError as err:
        yield problem("mat", str(err),
                      "lay the printed mat flat under the camera, all its corner markers in "
                      "view, evenly lit and not covered (`companion vision mat` prints it)")
        return
    yield well("mat", f"in view: {len(view.found)} of {len(spec.markers)} markers found")


CHECKS: list[Check] = [check_camera]
