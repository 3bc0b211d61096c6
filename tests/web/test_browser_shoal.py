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
    new_game,
    open_game,
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


# What sticks out of the screen or of a card: the page's width against the window's, and
# every card whose content is wider than the card (a card's own scrolling box inside it
# holds what is wider, and it does not count).
WIDER = """() => {
  const out = [];
  const page = document.documentElement.scrollWidth;
  if (page > window.innerWidth) out.push(`page ${page} > ${window.innerWidth}`);
  for (const el of document.querySelectorAll("section.card")) {
    if (el.scrollWidth > el.clientWidth + 1) {
      out.push(`${el.id || el.dataset.player} ${el.scrollWidth} > ${el.clientWidth}`);
    }
  }
  return out;
}"""


def widest(view: dict[str, Any]) -> tuple[str, list[int]]:
    """The card and spot of the play that makes the shoal of the player to act widest."""
    plays = [e for e in view["legal"] if e["type"] == "play"]
    cells = view["state"]["shoals"][plays[0]["player"]]["cells"]
    xs = [int(k.split(",")[0]) for k in cells]

    def width(at: list[int]) -> int:
        return max(*xs, at[0] + 1) - min(*xs, at[0]) if xs else 2

    return max(((e["choices"]["card"][0], at) for e in plays for at in e["choices"]["at"]),
               key=lambda play: width(play[1]))


@pytest.mark.parametrize("size", ["phone", "tablet"])
def test_the_page_is_never_wider_than_the_screen_in_any_state_of_play(
        server: Server, new_browser: Any, size: str) -> None:
    # A game played to the end with every card laid where it widens the shoal most: the
    # shoals grow wider than a phone, and than a player's half of a tablet's board.
    sid = new_game(server, "shoal", ["Ann", "Ben"], {"goal": "G1"})["id"]
    page = open_game(new_browser, server, sid, size, pin=True)
    view = api_get(server, f"/api/games/{sid}")
    seq = 0
    while not view["over"]:
        card, (x, y) = widest(view)
        player = view["current"]
        page.locator(f'.sh-card[data-card="{card}"]').tap()
        page.wait_for_selector(f'section[data-player="{player}"] [data-at]')
        assert page.evaluate(WIDER) == [], f"{size}, move {seq + 1}, card {card} chosen"
        page.locator(f'section[data-player="{player}"] [data-at="{x},{y}"]').tap()
        seq += 1
        wait_seq(page, seq)
        assert page.evaluate(WIDER) == [], f"{size}, after move {seq}"
        view = api_get(server, f"/api/games/{sid}")
    page.wait_for_selector("#summary:not([hidden])")
    assert page.evaluate(WIDER) == [], f"{size}, game over"
    screenshot(page, f"shoal-{size}-widest")
