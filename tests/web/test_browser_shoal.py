"""Shoal in a real browser: every card of a two-player game laid by tapping the page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import (
    PHONE,
    TABLET,
    Server,
    api_get,
    create_game,
    enter_pin,
    play_photographed_shoal,
    read_from_camera,
    screenshot,
    touch_page,
    wait_seq,
)


def test_play_shoal(server: Server, new_browser: Any) -> None:
    tablet = new_browser(TABLET).new_page()
    tablet.goto(server.url + "/")
    enter_pin(tablet)
    sid = create_game(tablet, server, "shoal", ["Ann", "Ben"],
                      setup=lambda page: page.select_option("#goal-select", "G1"))
    phone = new_browser(PHONE).new_page()
    phone.goto(f"{server.url}/games/{sid}")
    phone.wait_for_selector("#live.on")

    view = api_get(server, f"/api/games/{sid}")
    assert view["state"]["goal"]["id"] == "G1"
    seq = 0
    while not view["over"]:
        play = view["legal"][-1]          # the last card that fits, at its last spot
        card, (x, y) = play["choices"]["card"][0], play["choices"]["at"][-1]
        tablet.click(f'.sh-card[data-card="{card}"]')
        tablet.click(f'section[data-player="{play["player"]}"] [data-at="{x},{y}"]')
        seq += 1
        wait_seq(tablet, seq)
        view = api_get(server, f"/api/games/{sid}")
        assert view["seq"] == seq
        assert view["state"]["shoals"][play["player"]]["plays"][-1] == {"card": card,
                                                                       "at": [x, y]}
        if seq == 6:
            wait_seq(phone, seq)
            screenshot(phone, "shoal-phone-playing")
            screenshot(tablet, "shoal-tablet-playing")
    wait_seq(phone, seq)
    phone.wait_for_selector("#summary:not([hidden])")
    for player, score in view["scores"].items():
        heading = phone.inner_text(f'section[data-player="{player}"] h2')
        assert heading.startswith(f"{player}: {score} point{'' if score == 1 else 's'}")
    screenshot(phone, "shoal-phone-over")
    screenshot(tablet, "shoal-tablet-over")


@pytest.fixture
def camera_server(tmp_path: Path) -> Iterator[tuple[Server, Any]]:
    """A server that reads Shoal photos with the shipped deck and generated card art,
    and a synthetic photo of a finished shoal."""
    import cv2

    from companion.games.shoal.deck import load_deck
    from vision import art, mat, synth

    deck = load_deck("default").to_json()
    art.write_deck(tmp_path / "deck", deck)
    scene = synth.shoal_scene(deck, mat.standard("A3"), 5, synth.PRESETS["clean"])
    photo = tmp_path / "ann.jpg"
    cv2.imwrite(str(photo), scene.photo, [cv2.IMWRITE_JPEG_QUALITY, 95])
    config = tmp_path / "config.toml"
    config.write_text(f'[vision]\ndeck = "{tmp_path / "deck"}"\n', "utf-8")
    srv = Server(tmp_path, "--config", str(config))
    yield srv, (scene, photo)
    srv.stop()


def test_score_from_camera(camera_server: tuple[Server, Any], new_browser: Any) -> None:
    server, (scene, photo) = camera_server
    game = play_photographed_shoal(server, scene)
    page = new_browser(TABLET).new_page()
    read_from_camera(page, server, game["id"], photo)
    page.wait_for_selector("#camera-overlay")
    assert "matches the layout" in page.inner_text("#camera-verdict")
    screenshot(page, "shoal-tablet-camera")
    page.select_option("#camera-player", "Ben")
    page.click("#camera-read")
    page.wait_for_selector("#camera-verdict:has-text('differ')")


# The nearest box around ``selector`` that scrolls by itself (its content taller than it),
# or null when only the page scrolls.
SCROLLER = """(selector) => {
  for (let el = document.querySelector(selector).parentElement; el && el !== document.body;
       el = el.parentElement) {
    const overflow = getComputedStyle(el).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && el.scrollHeight > el.clientHeight + 1) {
      return el.id || el.className;
    }
  }
  return null;
}"""


def test_the_camera_panel_scrolls_with_the_page(camera_server: tuple[Server, Any],
                                                 new_browser: Any) -> None:
    server, (scene, photo) = camera_server
    game = play_photographed_shoal(server, scene)
    for size in ("tablet", "phone"):      # the tablet first: its controls box scrolls
        page = touch_page(new_browser, size)
        read_from_camera(page, server, game["id"], photo)
        page.wait_for_selector("#camera-overlay")
        for part in ("#camera-read", "#camera-verdict", "#camera-overlay"):
            assert page.evaluate(SCROLLER, part) is None, f"{part} scrolls in a box ({size})"
        # In the side column, which scrolls with the page (the controls box does not).
        assert page.locator(".side #camera #camera-verdict").count() == 1
        screenshot(page, f"shoal-{size}-camera-panel")
