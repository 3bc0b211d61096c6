"""capture-deck: a table calibrates to its own cards from one photo."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.games.shoal.deck import load_deck
from vision import mat, shoal, synth
from vision.decks import load_deck as vision_deck
from vision.images import load as read_image


def test_capture_deck_writes_card_images_the_reader_can_use(tmp_path: Path,
                                                            deck_dir: Path) -> None:
    folder = tmp_path / "mydeck"
    folder.mkdir()
    deck = load_deck("default").to_json()
    (folder / "deck.json").write_text(json.dumps(deck))
    ids = [c["id"] for c in deck["cards"]]
    for start, photo_seed in ((0, 1), (9, 2), (18, 3), (27, 4), (36, 5)):
        batch = ids[start:start + 9]
        photo = tmp_path / f"batch{start}.jpg"
        camera = synth.Distortions(tilt_deg=20, rotation_deg=180, light=0.6, noise=4)
        scene = synth.spread_scene(deck, batch, mat.standard(), photo_seed, camera)
        cv2.imwrite(str(photo), scene.photo)
        assert main(["vision", "capture-deck", str(photo), "--deck", str(folder)]) == 0
    written = json.loads((folder / "deck.json").read_text())
    assert [c["image"] for c in written["cards"]] == [f"{i}.png" for i in ids]
    # each captured image looks like the card it is named after, not like another one
    for cid in ("F01", "F17", "F40"):
        captured = read_image(folder / f"{cid}.png").astype(np.float32)
        scores = {}
        for other in ("F01", "F17", "F40"):
            ref = cv2.resize(read_image(deck_dir / f"{other}.png"),
                             captured.shape[1::-1], interpolation=cv2.INTER_AREA)
            scores[other] = np.corrcoef(captured.ravel(), ref.astype(np.float32).ravel())[0, 1]
        assert max(scores, key=lambda k: scores[k]) == cid and scores[cid] > 0.9
    # and reading a shoal against the captured images works
    captured_deck = vision_deck(folder)
    s = synth.shoal_scene(deck, mat.standard(), 77, synth.PRESETS["tilt"])
    assert shoal.ShoalReader(captured_deck, mat.standard()).read(s.photo).cells == s.cells


def test_capture_deck_refuses_what_it_cannot_use(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "d"
    shutil.copytree(Path(load_deck("default").source or "").parent, folder)
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), synth.mat_scene(mat.standard(), 1).photo)
    assert main(["vision", "capture-deck", str(empty), "--deck", str(folder)]) == 2
    assert "no card-sized shapes on the mat" in capsys.readouterr().err
    assert main(["vision", "capture-deck", str(empty), "--deck", str(folder),
                 "--start", "X9"]) == 2
    assert "the deck has no card 'X9'" in capsys.readouterr().err
