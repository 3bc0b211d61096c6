"""Shark's money on the page, in chromium at a phone (touch) and a tablet: dollars
written alike everywhere, the board's rows and columns labelled, a purchase offered only
up to what the player can pay, the money ledger player by player, chart labels never
cut, a forced sale that says why the player must sell, and at the end each player's net
worth as cash plus shares at price."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from companion import games as GAMES
from companion.engine import IllegalAction
from companion.store import Store
from companion.table import Table
from tests.support.words import CODE, ENGINE
from tests.web.conftest import (
    ARTIFACTS,
    PHONE,
    TABLET,
    Server,
    api_get,
    api_post,
    enter_pin,
    screenshot,
    wait_seq,
)
from tests.web.scripted import choose


def dollars(text: str) -> int:
    return int(re.sub(r"[^0-9]", "", text))


def play_until(server: Server, sid: int, done: Any, seed: int = 5, limit: int = 4000) -> Any:
    rnd = random.Random(seed)
    view = api_get(server, f"/api/games/{sid}")
    for _ in range(limit):
        if done(view) or view["over"]:
            return view
        action = choose([e for e in view["legal"] if e["type"] != "forced_sell"
                         or rnd.random() < 0.9], rnd) or {"type": "end_turn"}
        try:
            view = api_post(server, f"/api/games/{sid}/actions", {"action": action})
        except OSError:
            continue
    raise AssertionError("the scripted game did not get there")


def buys(view: dict[str, Any]) -> dict[str, list[int]]:
    """Company -> the counts the engine offers to buy (one legal entry per company)."""
    return {e["choices"]["company"][0]: e["choices"]["count"] for e in view["legal"]
            if e["type"] == "buy"}


def can_buy_little(view: dict[str, Any]) -> bool:
    """Some company the player can buy fewer shares of than the turn's limit allows."""
    may = (view["state"]["pending"] or {}).get("may_buy", 0)
    return any(max(counts) < may for counts in buys(view).values())


def check_page(page: Any, view: dict[str, Any]) -> None:
    s = view["state"]
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    width = max(len(r) for r in s["layout"])
    assert page.locator(".sk-label.col").all_inner_texts() == [chr(65 + c) for c in range(width)]
    assert page.locator(".sk-label.row").all_inner_texts() == [str(r + 1) for r in
                                                               range(len(s["layout"]))]
    for row in page.locator("#scores tr").all():
        assert re.fullmatch(r"\$\d{1,3}(,\d{3})*", row.locator("td").inner_text()), \
            row.inner_text()
    # Every axis label of both charts inside its picture.
    for label in page.locator("svg.chart-svg text.tick").all():
        box, svg = label.bounding_box(), label.locator("xpath=..").bounding_box()
        assert box["x"] >= svg["x"] - 0.5, label.text_content()
    ticks = page.locator("#price-chart text.tick").all_text_contents()
    assert any(t.startswith("$") for t in ticks), ticks


def test_money_mid_game(server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "shark", "players": ["Ann", "Ben", "Cid"],
                                          "options": {"starting_cash": 4000}})["id"]
    view = play_until(server, sid, can_buy_little)
    buyer = next(e for e in view["legal"] if e["type"] == "buy")["player"]
    cash, prices = view["state"]["cash"][buyer], view["state"]["prices"]
    for size, viewport in (("phone", PHONE), ("tablet", TABLET)):
        page = new_browser(viewport, has_touch=True, is_mobile=size == "phone").new_page()
        page.goto(f"{server.url}/games/{sid}")
        page.wait_for_selector("#buy-company")
        for company in page.locator("#buy-company option").all():
            page.select_option("#buy-company", company.get_attribute("value"))
            counts = [int(c) for c in page.locator("#buy-count option").evaluate_all(
                "os => os.map(o => o.value)")]
            price = prices[company.get_attribute("value")]
            assert all(n * price <= cash for n in counts), (company, counts, cash)
            assert counts == buys(view)[company.get_attribute("value")]
        check_page(page, view)
        page.click("#ledger summary")
        page.wait_for_selector(f'table[data-ledger="{buyer}"], #ledger p.muted')
        for player in view["players"]:
            amounts = page.locator(f'table[data-ledger="{player}"] tr td:nth-child(3)')
            moved = sum(dollars(a) * (-1 if a.startswith("\u2212") else 1)
                        for a in amounts.all_inner_texts())
            assert 4000 + moved == view["state"]["cash"][player], player
        # An open ledger is drawn once, not redrawn by its own "toggle" event forever.
        page.evaluate("window.redraws = 0; new MutationObserver(() => window.redraws++)"
                      ".observe(document.getElementById('app'), {childList: true, "
                      "subtree: true})")
        page.wait_for_timeout(1000)
        assert page.evaluate("window.redraws") == 0
        whys = page.locator("#ledger td:nth-child(2)").all_inner_texts()
        assert whys and not [w for w in whys if ENGINE.search(w)], whys
        assert all(re.match(r"(bonus for|pioneer bonus|dividend, as|loss, as|bankrupt:|"
                            r"the \$|bought|sold|forced sale)", w) for w in whys), whys
        paid = view["log"][-1].get("paid", [])
        assert page.locator("ul.payments li").all_inner_texts() == [
            f"{p['player']} {'pays' if p['amount'] < 0 else 'gets'} "
            f"${abs(p['amount']):,}: {p['why']}" for p in paid]
        screenshot(page, f"money-shark-{size}-ledger")
        page.locator("#ledger").screenshot(path=str(ARTIFACTS / f"money-shark-{size}-ledger-"
                                                                "box.png"))


def test_net_worth_at_the_end(server: Server, new_browser: Any) -> None:
    sid = api_post(server, "/api/games", {"game": "shark", "players": ["Ann", "Ben"],
                                          "options": {}})["id"]
    view = play_until(server, sid, lambda v: v["over"], seed=11, limit=6000)
    s = view["state"]
    for size, viewport in (("phone", PHONE), ("tablet", TABLET)):
        page = new_browser(viewport, has_touch=True, is_mobile=size == "phone").new_page()
        page.goto(f"{server.url}/games/{sid}")
        page.wait_for_selector("#net-worth")
        for player, score in view["scores"].items():
            row = page.locator(f'#net-worth tr[data-worth="{player}"] td')
            cells = row.all_inner_texts()
            assert dollars(cells[-1]) == score
            held = page.locator(f'#net-worth tr[data-worth="{player}"] [data-held]')
            assert held.count() == sum(1 for n in s["shares"][player].values() if n)
            shares = sum(dollars(t.rsplit("=", 1)[1]) for t in held.all_inner_texts())
            assert shares == sum(s["shares"][player][c] * s["prices"][c]
                                 for c in s["shares"][player])
            assert dollars(cells[1]) + shares == score
        check_page(page, view)
        screenshot(page, f"money-shark-{size}-net-worth")


def stored_game(tmp_path: Path, actions: list[Any]) -> Any:
    """A Shark game of Ann, Ben and Cid with ``actions`` played, stored where a server
    started on ``tmp_path`` reads it (as if the table had played them)."""
    store = Store(tmp_path / "companion.db")
    table = Table(store)
    session = table.create("shark", ["Ann", "Ben", "Cid"], {})
    for action in actions:
        session = table.play(session.id, action)
    store.close()
    return session


def test_a_forced_sale_says_why_the_player_must_sell(tmp_path: Path,
                                                     new_browser: Any) -> None:
    """The forced sale's panel in the game's words: "Ben must sell to cover a $4,000
    loss: $1,000 in cash.", what the loss is for, the forced price; a tap sells and the
    log says "Ben sold 1 red at $1,000 to cover a $4,000 loss"."""
    # A seeded game of eager buyers that comes to a forced sale (few do), stored before
    # the server starts.
    shark = GAMES.get("shark")
    state, actions, rnd = shark.new(["Ann", "Ben", "Cid"], {}), [], random.Random(16)
    for _ in range(5000):
        if any(o.type == "forced_sell" for o in shark.legal(state)) or shark.is_over(state):
            break
        action = choose([o.to_json() for o in shark.legal(state)], rnd,
                        weights={"buy": 10, "end_turn": 0.5}) or {"type": "end_turn"}
        action = shark.resolve(state, action, rnd)       # the dice, as a table rolls
        try:
            state = shark.apply(state, action)
        except IllegalAction:
            continue
        actions.append(action)
    assert any(o.type == "forced_sell" for o in shark.legal(state)), "no forced sale"
    session = stored_game(tmp_path, actions)
    pending = shark.view(session.state)["pending"]
    debtor, owed = pending["player"], pending["owed"]
    cash = session.state.cash[debtor]
    server = Server(tmp_path)
    try:
        for size, viewport in (("phone", PHONE), ("tablet", TABLET)):
            page = new_browser(viewport, has_touch=True, is_mobile=size == "phone").new_page()
            page.goto(f"{server.url}/games/{session.id}")
            page.wait_for_selector("#forced")
            assert page.inner_text("#forced-why") == (
                f"{debtor} must sell to cover a ${owed:,} loss: ${cash:,} in cash.")
            said = page.inner_text("#forced")
            assert f"The loss: {pending['for']}." in said
            assert "half the price of each share, rounded down to a whole $1,000" in said
            assert not ENGINE.search(said) and not CODE.search(said), said
            assert page.locator("#forced").bounding_box()["y"] < viewport["height"]
            screenshot(page, f"money-shark-{size}-forced-sale")
            # The form of every legal move says it in the same words: not "forced sell",
            # not "count".
            page.click("#all-moves summary")
            form = page.locator('form.legal[data-type="forced_sell"]').first
            assert form.locator("strong").inner_text() == "Forced sale: sell shares to cover a loss"
            labels = [el.evaluate("el => el.firstChild.textContent.trim()")
                      for el in form.locator("label").all()]
            assert sorted(labels) == ["company", "seller", "shares"], labels
            said = form.inner_text()
            assert "forced sell" not in said and "count" not in said, said
            assert not CODE.search(said), said
            screenshot(page, f"money-shark-{size}-forced-sale-every-move")
        enter_pin(page)
        page.tap("#forced-go")
        wait_seq(page, session.seq + 1)
        line = page.locator("#log li").first.inner_text()
        assert re.match(rf"{debtor} sold \d+ (red|blue|green|yellow) at \$[\d,]+ to cover a "
                        rf"\${owed:,} loss", line), line
    finally:
        server.stop()


def test_a_takeover_says_what_it_removed_and_who_was_paid(tmp_path: Path,
                                                          new_browser: Any) -> None:
    """The log line of a hostile takeover names the buildings it removed and the bonus,
    and the move's payments say who gets what and why, at a phone and a tablet."""
    shark = GAMES.get("shark")
    state, actions, rnd = shark.new(["Ann", "Ben", "Cid"], {}), [], random.Random(1)
    for _ in range(3000):      # a seeded game up to its first takeover
        action = choose([o.to_json() for o in shark.legal(state)], rnd) or {"type": "end_turn"}
        action = shark.resolve(state, action, rnd)
        try:
            after = shark.apply(state, action)
        except IllegalAction:
            continue
        actions.append(action)
        took = sum(after.removed.values()) > sum(state.removed.values())
        state = after
        if took:
            break
    assert took, "no takeover"
    session = stored_game(tmp_path, actions)
    server = Server(tmp_path)
    try:
        view = api_get(server, f"/api/games/{session.id}")
        last = view["log"][-1]
        assert last["seq"] == session.seq and "the takeover removes" in last["text"]
        for size, viewport in (("phone", PHONE), ("tablet", TABLET)):
            page = new_browser(viewport, has_touch=True, is_mobile=size == "phone").new_page()
            page.goto(f"{server.url}/games/{session.id}")
            page.wait_for_selector("#live.on")
            line = page.locator(f'#log li[value="{session.seq}"]')
            expect(line).to_contain_text("the takeover removes")
            said = line.text_content() or ""      # drawn or not (content-visibility)
            assert re.search(r"built a \w+ building at [A-L]\d+: the takeover removes \d+ "
                             r"\w+ buildings?", said), said
            assert re.search(r"earns a \$[\d,]+ bonus", said), said
            assert not ENGINE.search(said) and not CODE.search(said), said
            # The move's payments, under what to do next.
            assert page.locator("ul.payments li").all_inner_texts() == [
                f"{p['player']} {'pays' if p['amount'] < 0 else 'gets'} "
                f"${abs(p['amount']):,}: {p['why']}" for p in last["paid"]]
            screenshot(page, f"money-shark-{size}-takeover")
    finally:
        server.stop()
