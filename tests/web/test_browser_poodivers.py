"""Tokyo Poo Divers in a real browser against ``companion serve``: create the game, enter
the PIN, play it to the end through the page, a second page follows live, undo."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import (
    PHONE,
    PIN,
    TABLET,
    Server,
    create_game,
    enter_pin,
    screenshot,
    wait_seq,
)
from tests.web.conftest import api_get as api
from vision.images import load as read_image

DECK = {"blank": 14, "sleeper": 14, "object": 42}


def create_through_page(page: Any, server: Server, players: list[str]) -> int:
    page.goto(server.url + "/")
    page.select_option("#game-select", "poodivers")
    for i, name in enumerate(players):
        page.locator("#players input").nth(i).fill(name)
    page.click("#start-game")
    # No PIN yet: the page asks for it, then finishes what it was doing.
    page.wait_for_selector("#pin-dialog[open]")
    page.fill("#pin-input", "0000")
    page.click("#pin-submit")
    page.wait_for_selector("#pin-error:has-text('wrong table PIN')")
    page.fill("#pin-input", PIN)
    page.click("#pin-submit")
    page.wait_for_url("**/games/*")
    page.wait_for_selector(".pd-cell")
    return int(page.url.rsplit("/", 1)[1])


def flip(page: Any, cell: str, face: str) -> None:
    page.click(f'.pd-cell[data-cell="{cell}"]')
    page.click(f'.pd-pick button[data-face="{face}"]')


def test_play_poodivers_to_the_end(server: Server, new_browser: Any) -> None:
    phone = new_browser(PHONE).new_page()
    sid = create_through_page(phone, server, ["Ann", "Ben", "Cid"])
    tablet = new_browser(TABLET).new_page()
    tablet.goto(f"{server.url}/games/{sid}")
    tablet.wait_for_selector(".pd-cell")
    tablet.wait_for_selector("#live.on")

    # First moves by hand: an object at C3, a dive to D3 (another object), bank.
    flip(phone, "C3", "object")
    wait_seq(phone, 1)
    assert phone.inner_text("#turn-points") == "1"
    flip(phone, "D3", "object")
    wait_seq(tablet, 2)  # the second page follows live
    assert tablet.inner_text("#turn-points") == "3"
    assert "Ann flipped D3: an object" in tablet.inner_text("#log")
    screenshot(phone, "poodivers-phone-dive")
    screenshot(tablet, "poodivers-tablet-dive")

    # Undo (with confirmation) takes the dive flip back on both pages.
    phone.click("#undo")
    phone.click("#confirm-yes")
    wait_seq(tablet, 1)
    assert tablet.inner_text("#turn-points") == "1"
    assert api(server, f"/api/games/{sid}")["seq"] == 1

    phone.click("#bank")
    wait_seq(tablet, 2)
    view = api(server, f"/api/games/{sid}")
    assert view["scores"]["Ann"] == 1 and view["current"] == "Ben"
    # The log says the points banked and the turds paid for them, on both pages.
    for page in (phone, tablet):
        assert page.text_content("#log li:first-child") == "Ann banked 1 point (1 brown turd)."

    # The rest of the game: flip what the rules allow, blanks and sleepers first.
    shown = {"blank": 0, "sleeper": 0, "object": 1}
    seq = 2
    while not view["over"]:
        legal = {entry["type"]: entry for entry in view["legal"]}
        if "flip" in legal:
            cell = legal["flip"]["choices"]["cell"][0]
            face = next(f for f in ("blank", "sleeper", "object") if shown[f] < DECK[f])
            flip(phone, cell, face)
            shown[face] += 1
        else:
            phone.click("#bank")
        seq += 1
        wait_seq(phone, seq)
        view = api(server, f"/api/games/{sid}")
        assert view["seq"] == seq
        peek = [e for e in view["legal"] if e["type"] == "peek"]
        if peek and seq < 10:   # the player who drew the blank peeks at a card
            phone.click("#peek")
            phone.click(f'.pd-cell[data-cell="{peek[0]["choices"]["cell"][-1]}"]')
            seq += 1
            wait_seq(phone, seq)
            assert f"{peek[0]['player']} peeked at" in phone.inner_text("#log li:first-child")
            view = api(server, f"/api/games/{sid}")
    wait_seq(tablet, seq)
    # Every turn ended by the grid (no closed card to flip next) was banked by itself,
    # and the log said so with the points and the turds.
    auto = [e["text"] for e in view["log"] if "no closed card to flip next" in e["text"]]
    assert auto and all(re.search(r"\d+ points? banked \(.*turds?\)", t) for t in auto), auto
    shown = tablet.locator("#log li").all_text_contents()
    assert sorted(t for t in shown if "no closed card to flip next" in t) == sorted(
        t for t in auto if t in shown)
    assert any("no closed card to flip next" in t for t in shown)
    summary = tablet.inner_text("#summary")
    assert "Game over" in summary
    for winner in view["winners"]:
        assert winner in summary
    assert tablet.inner_text("#turn").startswith("Game over")
    screenshot(phone, "poodivers-phone-over")
    screenshot(tablet, "poodivers-tablet-over")


@pytest.fixture
def faces_server(tmp_path: Path) -> Iterator[tuple[Server, Path, dict[str, str]]]:
    """A server that reads Tokyo Poo Divers photos, and a synthetic photo of a grid."""
    import cv2

    from vision import art, mat, synth
    from vision.decks import load_faces

    art.write_faces(tmp_path / "faces")
    faces = load_faces(tmp_path / "faces")
    images = {k: [read_image(p) for p in v] for k, v in faces.faces.items()}
    rows = ("########",) * 8
    scene = synth.poodivers_scene(images, faces.card_mm, rows, mat.standard("A3"), 4,
                                  unseen_objects=0.0)
    photo = tmp_path / "grid.jpg"
    cv2.imwrite(str(photo), scene.photo, [cv2.IMWRITE_JPEG_QUALITY, 95])
    config = tmp_path / "config.toml"
    config.write_text(f'[vision]\nfaces = "{tmp_path / "faces"}"\n', "utf-8")
    srv = Server(tmp_path, "--config", str(config))
    yield srv, photo, scene.cells
    srv.stop()


def test_check_the_grid_with_the_camera(faces_server: Any, new_browser: Any) -> None:
    server, photo, cells = faces_server
    page = new_browser(PHONE).new_page()
    page.goto(server.url + "/")
    enter_pin(page)
    create_game(page, server, "poodivers", ["Ann", "Ben"])
    page.click("details.camera summary")
    page.set_input_files("#pd-photo", str(photo))
    page.click("#pd-read")
    page.wait_for_selector("#pd-verdict")
    opened = sum(1 for face in cells.values() if face != "closed")
    assert f"{opened} card(s) differ" in page.inner_text("#pd-verdict")
