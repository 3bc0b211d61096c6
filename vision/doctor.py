"""``companion doctor``'s vision checks: the configured camera gives a photo, the mat is
in view in it, and the configured deck's sections and faces can be told apart in a photo
(imported by :mod:`companion.doctor` when the doctor runs)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from companion.doctor import Check, Finding, Setup, problem, well
from vision import mat as mats
from vision import sources
from vision.errors import VisionError

ALIKE_FIX = ("rescan or redraw one of each pair (`companion vision capture-deck`), or "
             "check those cells by hand: the reader marks them unsure")


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


def check_cards(setup: Setup) -> Iterable[Finding]:
    """The [vision] deck and faces: they load, and no two values look alike in a photo."""
    from vision import calibration
    from vision.decks import load_deck, load_faces, missing_images

    files = setup.settings.vision or {}
    for key in ("deck", "faces"):
        if not files.get(key):
            continue
        name = f"vision {key}"
        try:
            if key == "deck":
                deck = load_deck(Path(str(files[key])))
                if missing_images(deck):
                    yield problem(name, f"{files[key]}: cards without pictures "
                                  f"({', '.join(missing_images(deck)[:3])} …)",
                                  "photograph them with `companion vision capture-deck`")
                    continue
                lines = calibration.alike_messages(deck=deck)
            else:
                lines = calibration.alike_messages(faces=load_faces(Path(str(files[key]))))
        except VisionError as err:
            yield problem(name, str(err), f"fix {key} under [vision] in config.toml")
            continue
        if lines:
            yield problem(name, f"{files[key]}: " + "; ".join(lines), ALIKE_FIX)
        else:
            yield well(name, f"{files[key]}: every value can be told apart in a photo")


CHECKS: list[Check] = [check_camera, check_cards]
