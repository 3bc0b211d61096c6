"""What a change costs the page, in chromium at a phone (390 x 844, touch) and a tablet
(1280 x 800, touch), counted in what the page makes and writes (never in milliseconds):
a move makes again only the cards that look different, a kept board goes in whole where
something else was, a kept box stays put when a part above it comes or goes, the running
countdown writes its text only when the text changes, and the clapper's sound is made
after a tap's answer is drawn, not before."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import (
    DEVICES,
    PIN,
    Server,
    api_get,
    api_post,
    new_game,
    open_game,
    wait_seq,
)

# Every element the page makes from now on, kept in window.__made.
MADE = """() => {
  window.__made = [];
  const make = document.createElement.bind(document);
  document.createElement = (tag, options) => {
    const el = make(tag, options);
    window.__made.push(el);
    return el;
  };
}"""

# Each card's look (its classes and text), by cell.
LOOKS = """() => Object.fromEntries([...document.querySelectorAll("button.pd-cell")].map(
  (b) => [b.dataset.cell, b.className + " " + b.textContent]))"""


@pytest.mark.parametrize("size", list(DEVICES))
def test_a_move_makes_again_only_the_cards_that_look_different(
        server: Server, new_browser: Any, size: str) -> None:
    sid = new_game(server, "poodivers", ["Ann", "Ben"])["id"]
    page = open_game(new_browser, server, sid, size)
    before = page.evaluate(LOOKS)
    page.evaluate(MADE)
    # A sleeper: the same player flips again, every other card as it was.
    api_post(server, f"/api/games/{sid}/actions",
             {"action": {"type": "flip", "cell": "D4", "face": "sleeper"}})
    wait_seq(page, 1)
    after = page.evaluate(LOOKS)
    differ = sorted(c for c in after if after[c] != before[c])
    assert differ == ["D4"]
    # (a card made again is then morphed into the one shown: the count is of the makes)
    made = page.evaluate("() => window.__made.filter((el) => el.matches('button.pd-cell'))"
                         ".map((el) => el.dataset.cell)")
    assert made == differ, f"{size}: cards made again: {len(made)}"
    assert page.locator("button.pd-cell").count() == 64
    assert "zzz" in page.inner_text('button.pd-cell[data-cell="D4"]')


def test_a_kept_board_goes_in_whole_where_something_else_was(
        server: Server, new_browser: Any) -> None:
    # A Shark board whose cells were kept one by one, put in after a panel that takes its
    # place (a forced sale comes above the board): every cell is there, none empty.
    sid = new_game(server, "shark", ["Ann", "Ben"])["id"]
    for size in DEVICES:
        page = open_game(new_browser, server, sid, size)
        got = page.evaluate("""() => {
          const { h, update, reuse } = window.TC;
          const board = document.getElementById("board");
          const shown = board.querySelector(".sk-board");
          const count = shown.children.length;
          const cells = [...shown.children].map((c) => reuse(c, c.drawnFrom, () => null));
          update(board, h("div", { id: "forced" }, "sell"), h("div", { class: "sk-board" }, cells));
          const grid = board.querySelector(".sk-board");
          return [count, grid.children.length,
                  grid.querySelectorAll("button.sk-cell").length,
                  [...grid.children].filter((c) => !c.hasChildNodes() && !c.matches(
                    ".sk-label:first-child, .none")).length];
        }""")
        drawn, kept, buttons, empty = got
        assert kept == drawn and buttons == 120 and empty == 0, (size, got)


# update() of a parent holding a kept box (reuse) after a part above it went away, then
# after one came: the box itself never leaves the page (a box moved is laid out and
# painted again, its tables and all).
KEPT_BOX = """() => {
  const { h, update, reuse } = window.TC;
  const host = h("div", {});
  document.getElementById("app").append(host);
  const box = reuse(null, "box", () => h("div", { id: "kept-box" }, h("table", {},
    h("tr", {}, h("td", {}, "1")))));
  update(host, h("p", {}, "a"), h("p", { class: "row" }, "b"), box);
  const moved = [];
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of [...r.addedNodes, ...r.removedNodes]) {
        if (n.id === "kept-box") moved.push(n.id);
      }
    }
  }).observe(host, { childList: true });
  update(host, h("p", {}, "a"), reuse(box, "box", () => null));
  const fewer = host.textContent;
  update(host, h("p", {}, "a"), h("button", {}, "c"), reuse(box, "box", () => null));
  const more = host.textContent;
  return new Promise((done) => setTimeout(() => { host.remove(); done([moved, fewer, more]); }));
}"""


def test_a_kept_box_stays_put_when_a_part_above_it_comes_or_goes(
        server: Server, new_browser: Any) -> None:
    sid = new_game(server, "drshark", ["Ann", "Ben"])["id"]
    for size in DEVICES:
        page = open_game(new_browser, server, sid, size)
        moved, fewer, more = page.evaluate(KEPT_BOX)
        assert (fewer, more) == ("a1", "ac1"), size
        assert moved == [], f"{size}: the kept box left the page {len(moved)} times"


@pytest.mark.parametrize("size", list(DEVICES))
def test_the_running_countdown_writes_only_what_changed(
        server: Server, new_browser: Any, size: str) -> None:
    sid = new_game(server, "drshark", ["Ann", "Ben"],
                   actions=[{"type": "move", "space": "A-light"}])["id"]
    page = open_game(new_browser, server, sid, size)
    api_post(server, "/api/timer/start", {"game": sid})
    page.wait_for_selector("#countdown.running")
    # Over 40 frames: the writes to the countdown against the texts it showed.
    writes, texts = page.evaluate("""() => new Promise((done) => {
      const clock = document.getElementById("countdown");
      let writes = 0;
      const seen = new Set();
      new MutationObserver((records) => { writes += records.length; })
        .observe(clock, { subtree: true, childList: true, characterData: true,
                          attributes: true });
      let frames = 0;
      const frame = () => {
        seen.add(clock.textContent + " " + clock.className);
        if (++frames < 40) requestAnimationFrame(frame);
        else setTimeout(() => done([writes, seen.size]));
      };
      requestAnimationFrame(frame);
    })""")
    api_post(server, "/api/timer/stop", {})
    assert writes <= 2 * texts, f"{size}: {writes} writes for {texts} texts shown"


# The log's latest line when the page makes its sound context.
SOUND_AFTER = """(() => {
  const Made = window.AudioContext;
  window.AudioContext = function (...args) {
    const top = document.querySelector("#log li");
    document.documentElement.dataset.soundAfter = top ? top.value : "0";
    return new Made(...args);
  };
})()"""


def test_the_clappers_sound_is_made_after_the_taps_answer_is_drawn(
        server: Server, new_browser: Any) -> None:
    for size in DEVICES:
        sid = new_game(server, "drshark", ["Ann", "Ben"])["id"]
        # The PIN in a header: no tap on the page before the one looked at.
        page = open_game(new_browser, server, sid, size, script=SOUND_AFTER,
                         extra_http_headers={"X-Table-Pin": PIN})
        page.tap('button.space[data-space="A-light"]')
        wait_seq(page, 1)
        page.wait_for_selector("html[data-sound-after]", state="attached")
        assert page.get_attribute("html", "data-sound-after") == "1", size
        assert api_get(server, f"/api/games/{sid}")["seq"] == 1


@pytest.mark.parametrize("size", list(DEVICES))
def test_a_shoal_move_makes_again_only_the_players_and_cards_it_changed(
        server: Server, new_browser: Any, size: str) -> None:
    players = ["Ann", "Ben", "Cid", "Dan"]
    view = new_game(server, "shoal", players, {"goal": "G1"})
    sid = view["id"]
    for _ in range(4):      # a card each: four shoals, the hand of the cards left
        play = view["legal"][0]
        view = api_post(server, f"/api/games/{sid}/actions", {"action": {
            "type": "play", "card": play["choices"]["card"][0], "at": play["choices"]["at"][0]}})
    page = open_game(new_browser, server, sid, size)
    assert page.locator(".sh-hand .sh-card").count() > 10
    page.evaluate(MADE)
    play = view["legal"][0]
    api_post(server, f"/api/games/{sid}/actions", {"action": {
        "type": "play", "card": play["choices"]["card"][0], "at": play["choices"]["at"][0]}})
    wait_seq(page, 5)
    made = page.evaluate("""() => window.__made.filter((el) => el.matches(
      'section[data-player], .sh-card')).map((el) => el.dataset.player || el.dataset.card)""")
    # Ann laid a card (her shoal and score changed), Ben is to play: the hand's cards and
    # Cid's and Dan's parts are as they were.
    assert made == ["Ann", "Ben"], f"{size}: made again {made}"
    assert page.locator(f'.sh-card[data-card="{play["choices"]["card"][0]}"]').count() == 0
    assert "(to play)" in page.inner_text('section[data-player="Ben"] h2')
    assert "(to play)" not in page.inner_text('section[data-player="Ann"] h2')


# One observer over the page: per batch of changes (what one task changed), whether it
# changed the log, the chart, or both.
BATCHES = """() => {
  window.__batches = [];
  new MutationObserver((records) => {
    const inside = (id) => records.some((r) => r.target.closest && r.target.closest("#" + id)
      || r.target.parentElement && r.target.parentElement.closest("#" + id));
    window.__batches.push([inside("log"), inside("chart")]);
  }).observe(document.getElementById("app"), { subtree: true, childList: true,
                                               characterData: true, attributes: true });
}"""


@pytest.mark.parametrize("size", list(DEVICES))
def test_a_changes_drawing_shows_the_log_and_leaves_the_chart_for_later(
        server: Server, new_browser: Any, size: str) -> None:
    sid = new_game(server, "poodivers", ["Ann", "Ben"])["id"]
    page = open_game(new_browser, server, sid, size)
    page.evaluate(BATCHES)
    api_post(server, f"/api/games/{sid}/actions",
             {"action": {"type": "flip", "cell": "D4", "face": "object"}})
    wait_seq(page, 1)
    # The chart follows once the browser is idle: its lines have the new point (two
    # points, one space between them).
    page.wait_for_selector('#chart polyline[points*=" "]', state="attached")
    batches = page.evaluate("window.__batches")
    assert [True, True] not in batches, f"{size}: the log and the chart drawn together"
    assert [True, False] in batches and [False, True] in batches, batches
