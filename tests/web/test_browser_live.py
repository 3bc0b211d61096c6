"""Live pages in Chromium: a page that only follows the changes (light events, patched
onto the view it loaded) shows exactly what a page loaded afresh shows, for every game;
so does a page that missed an event; a page draws the answer to its own tap once."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.conftest import (
    TABLET,
    Server,
    api_get,
    api_post,
    enter_pin,
    screenshot,
    touch_page,
    wait_seq,
)

PLAYERS = ["Ann", "Ben", "Cy"]


def pick(legal: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    entry = rnd.choice(legal)
    action: dict[str, Any] = {"type": entry["type"]}
    for key, values in (entry.get("choices") or {}).items():
        if values:
            action[key] = rnd.choice(list(values))
    return action


def play(server: Server, sid: int, moves: int, rnd: random.Random) -> int:
    """Up to ``moves`` legal actions through the API, with an undo now and then."""
    for _ in range(moves * 10):
        view = api_get(server, f"/api/games/{sid}")
        if moves == 0 or view["over"]:
            return int(view["seq"])
        try:
            if view["seq"] and rnd.random() < 0.15:
                api_post(server, f"/api/games/{sid}/undo", {})
            else:
                api_post(server, f"/api/games/{sid}/actions",
                         {"action": pick(view["legal"], rnd)})
        except OSError:       # a refused pick (HTTP 400): the script picks again
            continue
        moves -= 1
    return int(api_get(server, f"/api/games/{sid}")["seq"])


@pytest.mark.parametrize("game", ["drshark", "shark", "poodivers", "shoal"])
def test_a_following_page_shows_what_a_fresh_one_shows(server: Server, new_browser: Any,
                                                        game: str) -> None:
    sid = api_post(server, "/api/games", {"game": game, "players": PLAYERS})["id"]
    browser = new_browser(TABLET)
    follower = browser.new_page()
    follower.goto(f"{server.url}/games/{sid}")
    follower.wait_for_selector("#live.on")
    seq = play(server, sid, 25, random.Random(5))
    wait_seq(follower, seq)
    fresh = browser.new_page()
    fresh.goto(f"{server.url}/games/{sid}")
    fresh.wait_for_selector("#live.on")
    wait_seq(fresh, seq)
    settled(follower)
    settled(fresh)
    screenshot(follower, f"live-{game}-follower")
    a, b = settled_alike(follower, fresh)
    assert a == b


def settled(page: Any) -> None:
    """Once the page has been idle: the scores, chart and log a change draws after the
    board are drawn then (``TC.idle``), on a busy machine a while after ``seq`` moves."""
    page.evaluate("""() => new Promise((done) => requestIdleCallback(
        () => requestAnimationFrame(() => done()), { timeout: 2000 }))""")


def shown(page: Any) -> str:
    """The page's text but the seconds of a running countdown (a clock, not the view)."""
    text: str = page.evaluate("""() => {
        const main = document.querySelector("main").cloneNode(true);
        main.querySelectorAll("#countdown").forEach((el) => el.remove());
        return main.innerText;
    }""")
    return text


def settled_alike(page: Any, fresh: Any, within_ms: int = 5000) -> tuple[str, str]:
    """Both pages' text once they agree, or as they stand after ``within_ms``: the log and
    the chart are drawn when the browser is idle (up to 2 s after the rest), so a page
    just opened may not show them yet."""
    waited = 0
    while (a := shown(page)) != (b := shown(fresh)) and waited < within_ms:
        fresh.wait_for_timeout(100)
        waited += 100
    return a, b


# Wraps the page's EventSource so a test can make it lose the next change event, as a
# page whose script was busy or whose stream hiccuped would, or hear changes late (after
# the answer to its own tap).
LOSSY = """
(() => {
  const Real = window.EventSource;
  window.lost = 0;
  window.EventSource = function (url, options) {
    const source = new Real(url, options);
    const listen = source.addEventListener.bind(source);
    source.addEventListener = (name, handler, ...rest) => listen(name, name !== "change"
      ? handler : (ev) => {
        if (window.loseNext) {        // counted on the page too, for a locator to wait on
          window.loseNext = false;
          window.lost += 1;
          document.documentElement.dataset.lost = String(window.lost);
          return;
        }
        if (window.late) setTimeout(() => handler(ev), window.late);
        else handler(ev);
      }, ...rest);
    return source;
  };
  window.EventSource.CLOSED = Real.CLOSED;
})();
"""


def test_a_page_that_missed_an_event_ends_with_the_table_view(
        server: Server, new_browser: Any) -> None:
    """It lost the undo of A1's flip, then hears B2's flip (a patch on the undo, which
    does not mention A1): the page fetches the game again instead of keeping A1 open."""
    sid = api_post(server, "/api/games", {"game": "poodivers", "players": PLAYERS})["id"]
    api_post(server, f"/api/games/{sid}/actions",
             {"action": {"type": "flip", "cell": "A1", "face": "object"}})
    context = new_browser(TABLET)
    context.add_init_script(LOSSY)
    page = context.new_page()
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    wait_seq(page, 1)
    page.evaluate("window.loseNext = true")
    api_post(server, f"/api/games/{sid}/undo", {})
    expect(page.locator('html[data-lost="1"]')).to_be_attached()
    api_post(server, f"/api/games/{sid}/actions",
             {"action": {"type": "flip", "cell": "B2", "face": "object"}})
    page.wait_for_selector('button.pd-cell[data-cell="B2"].object')
    assert "closed" in (page.get_attribute('button.pd-cell[data-cell="A1"]', "class") or "")
    fresh = context.new_page()
    fresh.goto(f"{server.url}/games/{sid}")
    fresh.wait_for_selector("#live.on")
    a, b = settled_alike(page, fresh)
    assert a == b
    screenshot(page, "live-missed-event")


def test_a_tap_is_drawn_once(server: Server, new_browser: Any) -> None:
    """The answer to a tap draws the page; the live event of the same change, heard
    after it here, is known to the page and not drawn again; the chart is drawn again
    only for a change, not for a choice on the board."""
    sid = api_post(server, "/api/games", {"game": "poodivers", "players": PLAYERS})["id"]
    context = new_browser(TABLET, has_touch=True)
    context.add_init_script(LOSSY)
    page = context.new_page()
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    enter_pin(page)
    page.evaluate("window.late = 300")
    # Counted where the page draws (the board is changed in place, so a drawing of the
    # same view changes no node: the calls are what cost).
    page.evaluate("""() => {
      window.boards = 0; window.charts = 0;
      const game = window.GAMES.poodivers, render = game.render, draw = window.Chart.draw;
      game.render = (...args) => { window.boards += 1; return render(...args); };
      window.Chart.draw = (...args) => { window.charts += 1; return draw(...args); };
    }""")
    for n, cell in enumerate(("C3", "D4"), 1):
        page.tap(f'button.pd-cell[data-cell="{cell}"]')      # asks for the face
        page.wait_for_selector('button[data-face="object"]')
        assert page.evaluate("window.charts") == n - 1       # a choice, not a change
        before = page.evaluate("window.boards")
        page.tap('button[data-face="object"]')
        wait_seq(page, n)
        page.wait_for_timeout(800)             # the change's live event has come too
        assert page.evaluate("window.boards") - before == 1
        assert page.evaluate("window.charts") == n           # the chart once a change


@pytest.mark.parametrize("game", ["drshark", "shark", "poodivers", "shoal"])
def test_players_are_listed_in_seat_order(server: Server, new_browser: Any,
                                          game: str) -> None:
    """Seated Cy, Ann, Ben: the scoreboard, the chart's lines and the game's own
    tables (holdings, dossiers, net worth) list them so on a page loaded afresh (its game
    data has the keys sorted) and on one that followed the game (a patch keeps the keys'
    places), not alphabetically or in whatever order the keys came."""
    seats = ["Cy", "Ann", "Ben"]
    sid = api_post(server, "/api/games", {"game": game, "players": seats})["id"]
    follower = touch_page(new_browser, "tablet")
    follower.goto(f"{server.url}/games/{sid}")
    follower.wait_for_selector("#live.on")
    seq = play(server, sid, 8, random.Random(3))
    fresh = touch_page(new_browser, "phone")
    fresh.goto(f"{server.url}/games/{sid}")
    fresh.wait_for_selector("#live.on")
    wait_seq(follower, seq)
    for page in (fresh, follower):
        expect(page.locator("#scores tr[data-score]")).to_have_count(3)
        assert [r.get_attribute("data-score")
                for r in page.locator("#scores tr[data-score]").all()] == seats
        assert [line.get_attribute("data-line")
                for line in page.locator("#chart polyline[data-line]").all()] == seats
        # (the text, drawn or not: a card off the screen is drawn when it comes near)
        assert [(k.text_content() or "").strip()
                for k in page.locator("#chart .legend .key").all()] == seats
        if game == "poodivers":
            assert page.locator("table.holdings th[scope=row]").all_text_contents() == seats
        if game == "drshark":
            owners = [t.split(":")[0] for t in page.locator(".dossier").all_text_contents()]
            assert owners == seats
    screenshot(fresh, f"live-{game}-seat-order")
