"""What a redraw keeps, in chromium at a phone (390 x 844, touch) and a tablet (1280 x 800,
touch): choosing a Shoal card changes the hand and the shoal in place (the elements
stay, only the spots come and go), and a Tokyo Poo Divers camera check a player opened
stays open when the page draws the next move."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import (
    DEVICES,
    Server,
    api_get,
    api_post,
    new_game,
    open_game,
    screenshot,
    wait_seq,
)

# Counts the elements a change puts in or takes out of the game page (descendants too).
WATCH = """() => {
  window.__added = 0; window.__removed = 0;
  const size = (n) => (n.nodeType === 1 ? 1 + n.getElementsByTagName("*").length : 0);
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) window.__added += size(n);
      for (const n of r.removedNodes) window.__removed += size(n);
    }
  }).observe(document.getElementById("app"), { subtree: true, childList: true });
}"""


def mark(page: Any, selector: str) -> int:
    """Remember the elements ``selector`` finds now; how many."""
    return int(page.evaluate("(sel) => (window.__marked = [...document.querySelectorAll(sel)])"
                             ".length", selector))


def still_shown(page: Any) -> int:
    return int(page.evaluate("() => window.__marked.filter((el) => el.isConnected).length"))


def changed(page: Any) -> tuple[int, int]:
    got = page.evaluate("() => { const n = [window.__added, window.__removed];"
                        " window.__added = 0; window.__removed = 0; return n; }")
    return int(got[0]), int(got[1])


@pytest.mark.parametrize("size", list(DEVICES))
def test_choosing_a_shoal_card_changes_the_hand_and_the_shoal_in_place(
        server: Server, new_browser: Any, size: str) -> None:
    game = new_game(server, "shoal", ["Ann", "Ben"], {"goal": "G1"})
    sid = game["id"]
    for _ in range(4):      # two cards each: shoals with sections, spots on every side
        play = game["legal"][0]
        game = api_post(server, f"/api/games/{sid}/actions", {"action": {
            "type": "play", "card": play["choices"]["card"][0], "at": play["choices"]["at"][-1]}})
    page = open_game(new_browser, server, sid, size, pin=True)
    page.evaluate(WATCH)
    # The hand's cards, their sections and every section of both shoals.
    marked = mark(page, ".sh-hand .sh-card, .sh-card .sh-sec, #board .sh-sec")
    view = api_get(server, f"/api/games/{sid}")
    plays = [e for e in view["legal"] if e["type"] == "play"]
    # The card whose spots reach furthest left or up: they widen the grid.
    play = min(plays, key=lambda e: min(x + y for x, y in e["choices"]["at"]))
    card = play["choices"]["card"][0]
    spots = {f"{x},{y}" for x, y in play["choices"]["at"]}
    shoal = f'section[data-player="{play["player"]}"]'
    sections = set(view["state"]["shoals"][play["player"]]["cells"])

    page.locator(f'.sh-card[data-card="{card}"]').tap()
    page.wait_for_selector(f'.sh-card[data-card="{card}"].chosen')
    page.wait_for_selector(f"{shoal} [data-at]")
    assert still_shown(page) == marked, "choosing a card drew the hand or a shoal anew"
    pluses = page.locator(f"{shoal} .sh-sec.spot").count()
    assert pluses == len(spots - sections) > 0
    assert changed(page) == (pluses, 0)   # only the "+" spots came, nothing went
    # Every spot is where its cell is: a "+" left of the leftmost section when x is less.
    boxes = page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll(
        '{shoal} [data-at], {shoal} [data-cell]')].map((el) => [el.dataset.at || el.dataset.cell,
        el.getBoundingClientRect().x]))""")
    for key, x in boxes.items():
        for other, x2 in boxes.items():
            if int(key.split(",")[0]) < int(other.split(",")[0]):
                assert x < x2, (key, other)
    screenshot(page, f"redraw-{size}-shoal-card-chosen")

    page.locator(f'.sh-card[data-card="{card}"]').tap()      # and put back
    page.wait_for_selector(f'.sh-card[data-card="{card}"]:not(.chosen)')
    page.wait_for_selector(f"{shoal} [data-at]", state="detached")
    assert still_shown(page) == marked
    assert changed(page) == (0, pluses)

    # The card laid at a spot: the shoal gains its sections, the others stay.
    page.locator(f'.sh-card[data-card="{card}"]').tap()
    at = sorted(spots)[0]
    page.locator(f'{shoal} [data-at="{at}"]').tap()
    wait_seq(page, 5)
    assert api_get(server, f"/api/games/{sid}")["state"]["shoals"][play["player"]][
        "plays"][-1]["card"] == card


@pytest.mark.parametrize("size", list(DEVICES))
def test_a_camera_check_opened_by_hand_stays_open_through_the_next_move(
        server: Server, new_browser: Any, size: str) -> None:
    sid = new_game(server, "poodivers", ["Ann", "Ben"])["id"]
    page = open_game(new_browser, server, sid, size, pin=True)
    page.locator("details.camera summary").tap()
    page.wait_for_selector("details.camera[open] #pd-photo")
    # A move on another phone (the live event), then one on this page.
    api_post(server, f"/api/games/{sid}/actions",
             {"action": {"type": "flip", "cell": "A1", "face": "blank"}})
    wait_seq(page, 1)
    assert page.locator("details.camera[open]").count() == 1
    flip = next(e for e in api_get(server, f"/api/games/{sid}")["legal"] if e["type"] == "flip")
    page.locator(f'.pd-cell[data-cell="{flip["choices"]["cell"][0]}"]').tap()
    page.locator('.pd-pick button[data-face="object"]').tap()
    wait_seq(page, 2)
    assert page.locator("details.camera[open]").count() == 1
    screenshot(page, f"redraw-{size}-poodivers-camera-open")
    page.locator("details.camera summary").tap()       # closed by hand, it stays closed
    page.wait_for_selector("details.camera:not([open])")
    assert "bank" in [e["type"] for e in api_get(server, f"/api/games/{sid}")["legal"]]
    api_post(server, f"/api/games/{sid}/actions", {"action": {"type": "bank"}})
    wait_seq(page, 3)
    assert page.locator("details.camera:not([open])").count() == 1
