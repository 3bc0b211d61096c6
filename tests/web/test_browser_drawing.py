"""What a game page draws, and when, in chromium at a phone (390 x 844, touch) and a tablet
(1280 x 800, touch): the parts off the screen wait until they come near it, and what
the browser scrolls to stops below the pinned status whenever the status grows (a
message in it), not only when the page draws a move."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.conftest import DEVICES, Server, api_post, enter_pin, screenshot, touch_page

# Whether the browser draws an element (false while it waits off the screen), once a
# few frames have had the chance to change it.
DRAWN = """async (selector) => {
  const drawn = () => document.querySelector(selector).checkVisibility(
    { contentVisibilityAuto: true });
  for (let frame = 0; frame < 3; frame++) await new Promise((f) => requestAnimationFrame(f));
  return drawn();
}"""


def test_the_log_is_drawn_when_it_comes_near_the_screen(server: Server,
                                                        new_browser: Any) -> None:
    game = api_post(server, "/api/games", {"game": "shoal", "options": {"goal": "G1"},
                                           "players": ["Ann", "Ben", "Cid", "Dan"]})
    sid = game["id"]
    for _ in range(4):          # a card each: four shoals between the goal and the log
        play = game["legal"][0]
        game = api_post(server, f"/api/games/{sid}/actions", {"action": {
            "type": "play", "card": play["choices"]["card"][0], "at": play["choices"]["at"][0]}})
    page = touch_page(new_browser, "phone")
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    # On a phone the log is far below the shoals: not laid out or painted at the open.
    assert page.evaluate(DRAWN, "#log li") is False
    assert page.evaluate(DRAWN, '#board section[data-player="Ann"] .sh-sec') is True
    page.locator("#log").scroll_into_view_if_needed()
    assert page.evaluate(DRAWN, "#log li") is True
    assert page.locator("#log li").first.inner_text().startswith("Dan started the shoal with")
    screenshot(page, "drawing-phone-log-scrolled-to")


@pytest.mark.parametrize("size", list(DEVICES))
def test_scrolling_stops_below_the_status_when_a_message_makes_it_taller(
        server: Server, new_browser: Any, size: str) -> None:
    sid = api_post(server, "/api/games", {"game": "shark", "players": ["Ann", "Ben", "Cid"],
                                          "options": {}})["id"]
    page = touch_page(new_browser, size)
    page.goto(f"{server.url}/games/{sid}")
    enter_pin(page)
    page.wait_for_selector("#live.on")
    padding = "() => document.documentElement.style.scrollPaddingTop"
    status = "() => `${document.getElementById('status').offsetHeight + 8}px`"
    assert page.evaluate(padding) == page.evaluate(status)
    before = page.evaluate(status)
    # Not JSON in "Any action": the message goes to the top, under the turn.
    page.locator("#all-moves summary").tap()
    page.locator("form.custom textarea").fill("{not json")
    page.locator("form.custom button[type=submit]").tap()
    page.wait_for_selector("#flash:not([hidden])")
    taller = page.evaluate(status)
    assert taller != before
    expect(page.locator("html")).to_have_attribute(
        "style", re.compile(rf"scroll-padding-top: {taller}"))
    screenshot(page, f"drawing-{size}-message-in-status")
