"""How fast each game page draws and answers a tap on a slow phone, and how many bytes it
costs: Debian's chromium at 390 x 844 (touch) with the CPU slowed 4x, against
``companion serve`` on a fresh database.

For each game: a session played 200 actions deep through the API (as far as the game
goes; then a few undone so it is live), then ``--opens`` fresh page opens (no cache) and
``--taps`` taps on the page's own controls. Prints JSON per game: draw time (navigation
to the turn and the board drawn and painted, median ms; and to the whole page, its log
too), tap-to-update (the finger down to the
page showing the action in its log, median and max ms), bytes per page open (every
response as sent: gzip where the server packs it) and per change event (the live
stream's message, as sent), and the goals: draw < 800 ms, tap < 150 ms, open < 60 KB,
event < 4 KB.

    python benchmarks/page_speed.py [--actions 200] [--opens 3] [--taps 5] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, PHONE, PIN, Server
from tests.web.scripted import Client, choose

GOALS = {"draw_ms": 800, "tap_ms": 150, "open_kb": 60, "event_kb": 4}
GAMES = {"shark": (["Ann", "Ben", "Cid", "Dan"], {}),
         "drshark": (["Ann", "Ben", "Cid", "Dan"], {}),
         "poodivers": (["Ann", "Ben", "Cid"], {}),
         "shoal": (["Ann", "Ben", "Cid", "Dan"], {})}

# Marks the page's first drawing (the turn and the board), the whole page (the log too)
# and, after a tap, the log showing the new action (each followed by the next frame, so
# layout and paint are counted).
PROBE = """
(() => {
  const painted = (name) => requestAnimationFrame(() => setTimeout(() => performance.mark(name)));
  window.__taps = [];
  document.addEventListener("pointerdown", () => { window.__down = performance.now(); }, true);
  new MutationObserver(() => {
    const log = document.getElementById("log");
    const turn = document.getElementById("turn");
    const board = document.getElementById("board");
    const ready = turn && turn.textContent !== "Loading\u2026" && board && board.firstChild;
    if (!window.__drawn && ready) {
      window.__drawn = true;
      painted("tc-drawn");
    }
    const top = log && log.firstElementChild;
    if (!window.__whole && top) {
      window.__whole = true;
      painted("tc-whole");
    }
    const seq = top ? Number(top.value) : 0;
    if (window.__seq !== undefined && seq > window.__seq && window.__down) {
      const down = window.__down;
      window.__down = 0;
      requestAnimationFrame(() => setTimeout(() => window.__taps.push(performance.now() - down)));
    }
    window.__seq = seq;
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();
"""


def play_deep(client: Client, game: str, actions: int, rnd: random.Random) -> int:
    players, options = GAMES[game]
    status, view = client.call("POST", "/api/games", {"game": game, "players": players,
                                                      "options": options})
    assert status == 201, view
    sid = view["id"]
    tries = 0
    while view["seq"] < actions and not view["over"] and tries < actions * 20:
        tries += 1
        legal = [e for e in view["legal"] if e["type"] != "tally"]
        action = choose(legal, rnd)
        if action is None:
            break
        status, answer = client.call("POST", f"/api/games/{sid}/actions", {"action": action})
        if status == 200:
            view = answer
    while view["over"] or not [e for e in view["legal"] if e["type"] != "tally"]:
        client.call("POST", f"/api/games/{sid}/undo", {})
        view = client.call("GET", f"/api/games/{sid}")[1]
    for _ in range(6):      # room for the taps before the game could end
        client.call("POST", f"/api/games/{sid}/undo", {})
    return int(sid)


def taps_for(view: dict[str, Any], rnd: random.Random) -> list[str]:
    """The taps a player makes on the page for one action of ``view``'s legal list."""
    legal = {e["type"]: e for e in view["legal"]}
    game = view["game"]
    if game == "poodivers":
        if "flip" in legal and (rnd.random() < 0.8 or "bank" not in legal):
            cell = rnd.choice(legal["flip"]["choices"]["cell"])
            faces = legal["flip"]["choices"].get("face", ["object"])
            face = "object" if "object" in faces else faces[0]
            return [f'button.pd-cell[data-cell="{cell}"]', f'button[data-face="{face}"]']
        return ["#bank"] if "bank" in legal else []
    if game == "shoal":
        play = legal["play"]
        card, (x, y) = play["choices"]["card"][0], play["choices"]["at"][0]
        return [f'.sh-card[data-card="{card}"]',
                f'section[data-player="{play["player"]}"] [data-at="{x},{y}"]']
    if game == "shark":
        for kind, tap in (("forced_sell", "#forced-go"), ("choose_stock", "button.chip"),
                          ("roll", "#roll-for-me"), ("end_turn", "#end-turn")):
            if kind in legal:
                return [tap]
        if "place" in legal:      # a black face without the joker: choose the building
            buildings = [b for b in view["state"]["pending"]["choices"] if b != "remove_neutral"]
            chip = [f'#controls button.chip[data-company="{buildings[0]}"]:not([data-die])']
            return (chip if len(buildings) > 1 else []) + [".sk-cell.target"]
        return []
    for kind, tap in (("move", "button.space.target"), ("start_search", "#timer-start"),
                      ("draw", ".clues.pick button.clue"), ("take", ".clues.pick button.clue"),
                      ("skip_service", "#do-skip_service"), ("end_turn", "#do-end_turn"),
                      ("stop", "#timer-stop")):
        if kind in legal:
            return [tap]
    return []


def measure(server: Server, pw: Any, game: str, sid: int, opens: int, taps: int,
            rnd: random.Random) -> dict[str, Any]:
    client = Client(server.url, PIN)
    draws, wholes, open_bytes, events, tapped = [], [], [], [], []
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        for i in range(opens + 1):
            ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                      extra_http_headers={"X-Table-Pin": PIN},
                                      bypass_csp=True)   # for the probes' polling
            ctx.add_init_script(PROBE)
            page = ctx.new_page()
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            finished: dict[str, int] = {}     # request id -> bytes received, all told
            streamed: dict[str, int] = {}     # the live stream never finishes
            cdp.on("Network.loadingFinished", lambda e, f=finished: f.__setitem__(
                e["requestId"], int(e["encodedDataLength"])))
            cdp.on("Network.dataReceived", lambda e, d=streamed: d.__setitem__(
                e["requestId"], d.get(e["requestId"], 0) + int(e["encodedDataLength"])))
            messages: list[int] = []
            cdp.on("Network.eventSourceMessageReceived",
                   lambda e, messages=messages: messages.append(
                       len(f"event: {e['eventName']}\nid: {e['eventId']}\n".encode())
                       + len(e["data"].encode()) + 8 * (e["data"].count("\n") + 1))
                   if e["eventName"] == "change" else None)
            page.goto(f"{server.url}/games/{sid}")
            page.wait_for_function("performance.getEntriesByName('tc-drawn').length > 0",
                                   timeout=60_000)
            page.wait_for_selector("#live.on")
            page.wait_for_timeout(1500)
            page.wait_for_function("performance.getEntriesByName('tc-whole').length > 0",
                                   timeout=60_000)
            if i:       # the first open warms the server's caches, like a table's first
                draws.append(page.evaluate(
                    "performance.getEntriesByName('tc-drawn')[0].startTime"))
                wholes.append(page.evaluate(
                    "performance.getEntriesByName('tc-whole')[0].startTime"))
                open_bytes.append(sum(finished.values()) + sum(
                    n for rid, n in streamed.items() if rid not in finished))
            if i == opens:
                messages.clear()
                for _ in range(taps):
                    view = client.call("GET", f"/api/games/{sid}")[1]
                    if view["over"]:
                        break
                    plan = taps_for(view, rnd)
                    if not plan:
                        break
                    before = page.evaluate("window.__taps.length")
                    for selector in plan:
                        page.locator(selector).first.tap(timeout=30_000)
                    page.wait_for_function(f"window.__taps.length > {before}", timeout=30_000)
                    page.wait_for_timeout(300)
                tapped = page.evaluate("window.__taps")
                events = list(messages)
            ctx.close()
    finally:
        browser.close()
        client.close()
    return {
        "sid": sid, "actions": Client(server.url, PIN).call("GET", f"/api/games/{sid}")[1]["seq"],
        "draw_ms": round(statistics.median(draws)),
        "whole_ms": round(statistics.median(wholes)),
        "tap_ms": round(statistics.median(tapped)) if tapped else None,
        "tap_max_ms": round(max(tapped)) if tapped else None, "taps": len(tapped),
        "open_kb": round(statistics.median(open_bytes) / 1024, 1),
        "event_kb": round(max(events) / 1024, 2) if events else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--opens", type=int, default=3)
    ap.add_argument("--taps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    rnd = random.Random(args.seed)
    out: dict[str, Any] = {"goals": GOALS, "games": {}}
    with tempfile.TemporaryDirectory() as home:
        server = Server(Path(home))
        try:
            client = Client(server.url, PIN)
            sids = {g: play_deep(client, g, args.actions, rnd) for g in args.games}
            client.close()
            with sync_playwright() as pw:
                for game, sid in sids.items():
                    result = measure(server, pw, game, sid, args.opens, args.taps, rnd)
                    result["meets_goals"] = all(
                        result[k] is not None and result[k] < v for k, v in GOALS.items())
                    out["games"][game] = result
        finally:
            server.stop()
    out["machine"] = {"cpu": platform.processor() or platform.machine(),
                      "cores": os.cpu_count(), "load": os.getloadavg(),
                      "python": platform.python_version(), "throttle": 4,
                      "viewport": PHONE}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
