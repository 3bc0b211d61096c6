"""What players of other table apps would miss, in chromium at a phone (touch) and a
tablet: the game sent inside the page (no fetch of its JSON on open), selections kept
across a refresh, "I am Ben" on a phone, stepping back through the game's history
read-only, and a long game's log drawn from its last moves."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.conftest import (
    DEVICES,
    PHONE,
    TABLET,
    Server,
    api_get,
    api_post,
    enter_pin,
    screenshot,
    touch_page,
    wait_seq,
)


def open_counting(new_browser: Any, size: dict[str, int], url: str,
                  sid: int) -> tuple[Any, list[str]]:
    """A page at ``url`` that notes every request for the game's JSON and every failed
    request (a missing favicon included)."""
    page = new_browser(size, has_touch=True, is_mobile=size is PHONE).new_page()
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url)
            if r.url.split("?")[0].endswith(f"/api/games/{sid}") else None)
    page.on("response", lambda r: fetched.append(f"FAILED {r.status} {r.url}")
            if r.status >= 400 else None)
    page.goto(url)
    page.wait_for_selector("#live.on")
    return page, fetched


def test_no_fetch_on_open_and_a_chosen_card_survives_a_refresh(
        server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "shoal", "players": ["Ann", "Ben"],
                                          "options": {"goal": "G2"}})["id"]
    for size in (PHONE, TABLET):
        page, fetched = open_counting(new_browser, size, f"{server.url}/games/{sid}", sid)
        page.wait_for_timeout(1500)          # the stream's first event has come and gone
        assert fetched == []                 # the game came inside the page
        assert page.locator(".sh-card").count() > 2
        card = page.locator(".sh-card").nth(2).get_attribute("data-card")
        page.tap(f'.sh-card[data-card="{card}"]')
        page.wait_for_selector(f'.sh-card[data-card="{card}"].chosen')
        fetched.clear()
        page.reload()
        page.wait_for_selector("#live.on")
        page.wait_for_selector(f'.sh-card[data-card="{card}"].chosen')
        assert page.locator(".sh-card.chosen").count() == 1
        page.wait_for_timeout(1000)
        assert fetched == []
        page.tap(f'.sh-card[data-card="{card}"]')        # put it back for the next size
        page.wait_for_selector(".sh-card.chosen", state="detached")


CUES = """
window.cues = [];
(() => {
  // The count shows on the page too (html[data-cues]): tests wait for it with locators,
  // which the page's content-security policy allows (a polled string predicate is eval).
  const cue = (what) => {
    window.cues.push(what);
    document.documentElement.dataset.cues = String(window.cues.length);
  };
  const vibrate = Navigator.prototype.vibrate;
  Object.defineProperty(Navigator.prototype, "vibrate", { configurable: true,
    value: function (pattern) {
      const taken = vibrate.call(this, pattern);
      cue(["buzz", JSON.stringify(pattern), taken]);
      return taken;
    } });
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    cue(["beep", this.frequency.value, this.context.state]);
    return start.apply(this, args);
  };
  const Context = window.AudioContext;
  window.AudioContext = function (...args) {
    cue(["sound context"]);
    return new Context(...args);
  };
})();
"""
"""What a player feels and hears, spied in the page: every ``navigator.vibrate`` call
(with the browser's answer), every tone started (with its pitch and whether its sound
context is running, i.e. audible) and every sound context made."""


def cues(page: Any, n: int) -> None:
    """Wait until the page has given ``n`` cues (CUES)."""
    expect(page.locator(f'html[data-cues="{n}"]')).to_be_attached()


def test_i_am_ben(server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "poodivers", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    context = new_browser(PHONE, has_touch=True, is_mobile=True)
    context.add_init_script(CUES)
    phone = context.new_page()
    phone.goto(f"{server.url}/games/{sid}")
    phone.wait_for_selector("#live.on")
    enter_pin(phone)
    phone.select_option("#me", "Ben")
    phone.reload()
    phone.wait_for_selector("#live.on")
    assert phone.input_value("#me") == "Ben"          # remembered on this phone
    assert "Ann to play" in phone.inner_text("#turn")
    assert "mine" not in (phone.get_attribute("#turn", "class") or "")
    # Ben's phone still plays for Ann: the table is one group.
    phone.tap('button.pd-cell[data-cell="C3"]')
    phone.tap('button[data-face="object"]')
    wait_seq(phone, 1)
    assert api_get(server, f"/api/games/{sid}")["log"][0]["who"] == "Ann"
    cues(phone, 1)         # the sound context, made after the tap was answered: no cue
    assert phone.evaluate("window.cues") == [["sound context"]]
    tablet, _ = open_counting(new_browser, TABLET, f"{server.url}/games/{sid}", sid)
    api_post(server, f"/api/games/{sid}/actions", {"action": {"type": "bank"}})
    phone.wait_for_selector("#turn.mine:has-text('Your turn, Ben')")
    # Ben's turn: a buzz the phone took and an audible beep, once.
    cues(phone, 3)
    assert phone.evaluate("window.cues") == [
        ["sound context"], ["buzz", "[120,60,120]", True], ["beep", 880, "running"]]
    phone.tap('button.pd-cell[data-cell="D4"]')           # Ben plays on: no new cue
    phone.tap('button[data-face="object"]')
    wait_seq(phone, 3)
    api_post(server, f"/api/games/{sid}/actions", {"action": {"type": "bank"}})
    phone.wait_for_selector("#turn:not(.mine):has-text('Ann to play')")
    for action in ({"type": "flip", "cell": "E5", "face": "object"}, {"type": "bank"}):
        api_post(server, f"/api/games/{sid}/actions", {"action": action})
    phone.wait_for_selector("#turn.mine")                 # Ben's again: the same context
    cues(phone, 5)
    assert phone.evaluate("window.cues")[3:] == [["buzz", "[120,60,120]", True],
                                                 ["beep", 880, "running"]]
    assert "Ben to play" in tablet.inner_text("#turn")  # a phone nobody named
    assert "mine" not in (tablet.get_attribute("#turn", "class") or "")
    screenshot(phone, "features-phone-i-am-ben")


def test_stepping_back_through_the_history(server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "poodivers", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    for action in ({"type": "flip", "cell": "A1", "face": "object"}, {"type": "bank"},
                   {"type": "flip", "cell": "H8", "face": "sleeper"}):
        api_post(server, f"/api/games/{sid}/actions", {"action": action})
    for size in (TABLET, PHONE):
        page, _ = open_counting(new_browser, size, f"{server.url}/games/{sid}", sid)
        page.tap('#log li[value="1"] button')
        page.wait_for_selector("#past:has-text('After move 1 of')")
        assert page.get_attribute('button.pd-cell[data-cell="A1"]', "class").count("object")
        assert "closed" in page.get_attribute('button.pd-cell[data-cell="H8"]', "class")
        assert not page.is_visible("#bank") and not page.is_visible("#controls")
        screenshot(page, f"features-{'phone' if size is PHONE else 'tablet'}-history")
        page.tap("#past-back")
        page.wait_for_selector("#past:has-text('Before the first move')")
        assert "closed" in page.get_attribute('button.pd-cell[data-cell="A1"]', "class")
        page.tap("#past-next")
        page.tap("#past-next")
        page.wait_for_selector("#past:has-text('After move 2 of')")
        # A change at the table meanwhile: the look back stays until "Back to now".
        seq = api_get(server, f"/api/games/{sid}")["seq"]
        api_post(server, f"/api/games/{sid}/actions",
                 {"action": {"type": "flip", "cell": "D4", "face": "object"}})
        wait_seq(page, seq + 1)
        assert "closed" in page.get_attribute('button.pd-cell[data-cell="D4"]', "class")
        page.tap("#past-now")
        page.wait_for_selector("#past", state="hidden")
        assert "object" in page.get_attribute('button.pd-cell[data-cell="D4"]', "class")
        api_post(server, f"/api/games/{sid}/undo", {})
        wait_seq(page, seq)


def test_abandon_and_delete_from_the_start_page(server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "shark", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    api_post(server, f"/api/games/{sid}/actions",
             {"action": {"type": "choose_stock", "company": "red"}})
    phone = new_browser(PHONE, has_touch=True, is_mobile=True).new_page()
    phone.goto(server.url + "/")
    enter_pin(phone)
    game = f'#unfinished li[data-game="{sid}"]'
    phone.tap(f'{game} button[data-close="abandon"]')
    assert "Abandon #" in phone.inner_text("#close-text")
    phone.tap("#close-no")                            # asked first: No keeps it
    phone.wait_for_timeout(300)
    assert phone.is_visible(game)
    phone.tap(f'{game} button[data-close="abandon"]')
    screenshot(phone, "features-phone-abandon")
    phone.tap("#close-yes")
    phone.wait_for_selector(f'#history li[data-game="{sid}"]:has-text("abandoned")')
    assert phone.locator(game).count() == 0
    page = new_browser(TABLET, has_touch=True).new_page()
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#turn:has-text('abandoned')")
    assert api_get(server, f"/api/games/{sid}")["legal"] == []

    tablet = new_browser(TABLET, has_touch=True).new_page()
    tablet.goto(server.url + "/")
    enter_pin(tablet)
    tablet.tap(f'#history li[data-game="{sid}"] button[data-close="delete"]')
    tablet.tap("#close-yes")
    tablet.wait_for_selector(f'#history li[data-game="{sid}"]', state="detached")
    phone.wait_for_selector(f'#history li[data-game="{sid}"]', state="detached")  # live
    assert sid not in [g["id"] for g in api_get(server, "/api/games")]
    kept = [g for g in api_get(server, "/api/games?deleted=1") if g["id"] == sid]
    assert kept and kept[0]["closed"] == "deleted" and kept[0]["seq"] == 1
    assert api_get(server, f"/api/games/{sid}")["log"][0]["action"]["company"] == "red"


def test_the_log_shows_the_last_moves_and_earlier_ones_on_a_tap(
        server: Server, new_browser: Any) -> None:
    """A long game's page draws the last 40 moves of its log, not every move."""
    sid = api_post(server, "/api/games", {"game": "poodivers", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    view = api_get(server, f"/api/games/{sid}")
    while view["seq"] < 45:
        legal = {o["type"]: o for o in view["legal"]}
        action = ({"type": "bank"} if "bank" in legal and view["seq"] % 3 == 2 else
                  {"type": "flip", "cell": legal["flip"]["choices"]["cell"][0],
                   "face": "object"})
        view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
    seq = api_get(server, f"/api/games/{sid}")["seq"]
    assert seq == 45
    page = new_browser(PHONE, has_touch=True, is_mobile=True).new_page()
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    wait_seq(page, seq)
    assert page.locator("#log li").count() == 40
    assert page.inner_text("#log-more") == "Earlier moves (5 more)"
    page.tap("#log-more")
    page.wait_for_selector('#log li[value="1"]')
    assert page.locator("#log li").count() == 45 and not page.is_visible("#log-more")
    api_post(server, f"/api/games/{sid}/undo", {})      # a change keeps what was asked
    wait_seq(page, seq - 1)
    assert page.locator("#log li").count() == 44
    assert page.locator("#log li").first.get_attribute("value") == str(seq - 1)


# The width a select needs to show its widest choice whole, against the width it has.
NEEDED = """(el) => {
  const copy = el.cloneNode(true);
  copy.style.maxWidth = "none";
  copy.style.width = "auto";
  copy.style.position = "absolute";
  el.parentElement.append(copy);
  const needed = copy.getBoundingClientRect().width;
  copy.remove();
  return [needed, el.getBoundingClientRect().width];
}"""


@pytest.mark.parametrize("size", ["phone", "tablet"])
def test_who_holds_this_phone_fits_the_screen(server: Server, new_browser: Any,
                                              size: str) -> None:
    """On a tablet the list that says who holds the device shows its choices whole
    ("Who holds this phone?", "I am Annabelle"); on a phone it stays narrow beside the
    turn, and on neither does it widen the page."""
    sid = api_post(server, "/api/games", {"game": "poodivers",
                                          "players": ["Annabelle", "Ben"]})["id"]
    page = touch_page(new_browser, size)
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    me = page.locator("#me")
    needed, width = me.evaluate(NEEDED)
    if size == "tablet":
        assert width >= needed - 0.5, f"{width:.0f} px for {needed:.0f} px of choices"
    row = page.locator(".status-row")
    assert row.evaluate("el => el.scrollWidth <= el.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= DEVICES[size]["width"]
    screenshot(page, f"features-{size}-who-holds")


@pytest.mark.parametrize("size", list(DEVICES))
def test_the_phone_holders_moves_come_first(server: Server, new_browser: Any,
                                            size: str) -> None:
    """After Ann's blank, Ann may peek and Ben may flip: the form of every legal move
    lists the moves of whoever holds the device first, the rules' order otherwise."""
    sid = api_post(server, "/api/games", {"game": "poodivers", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    view = api_post(server, f"/api/games/{sid}/actions",
                    {"action": {"type": "flip", "cell": "C3", "face": "blank"}})
    order = [(o["type"], o["player"]) for o in view["legal"]]
    assert order == [("peek", "Ann"), ("flip", "Ben")]
    page = touch_page(new_browser, size)
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    page.click("#all-moves summary")
    forms = page.locator("#generic form.legal[data-type]")
    for holder, first in (("", ["peek", "flip"]), ("Ben", ["flip", "peek"]),
                          ("Ann", ["peek", "flip"])):
        page.select_option("#me", holder)
        expect(forms.first).to_have_attribute("data-type", first[0])
        assert [f.get_attribute("data-type") for f in forms.all()] == first, holder
        if holder == "Ben":
            screenshot(page, f"features-{size}-ben-first")


@pytest.mark.parametrize("size", list(DEVICES))
def test_the_clues_picked_for_a_fistful_survive_a_refresh(server: Server, new_browser: Any,
                                                          size: str) -> None:
    sid = api_post(server, "/api/games", {"game": "drshark", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    for action in ({"type": "move", "space": "D-light"}, {"type": "start_search"}):
        api_post(server, f"/api/games/{sid}/actions", {"action": action})
    page = touch_page(new_browser, size)
    page.goto(f"{server.url}/games/{sid}")
    page.wait_for_selector("#live.on")
    enter_pin(page)
    looks = page.locator(".clues.pick button.clue")
    picked = [looks.nth(i).get_attribute("data-clue") for i in (0, 1)]
    for clue in picked:
        page.tap(f'.clues.pick button.clue[data-clue="{clue}"]')
    expect(page.locator("#fistful-go")).to_have_text("Grab 2 clues")
    page.reload()
    page.wait_for_selector("#live.on")
    expect(page.locator("#fistful-go")).to_have_text("Grab 2 clues")
    expect(page.locator(".clues.pick button.clue.chosen")).to_have_count(2)
    page.tap("#fistful-go")
    wait_seq(page, 3)
    assert sorted(api_get(server, f"/api/games/{sid}")["log"][-1]["action"]["clues"]) == \
        sorted(picked)
