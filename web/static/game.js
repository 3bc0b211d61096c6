// A game page: the view from the API, kept live by Server-Sent Events; the parts every
// game shares (whose turn, scores, undo, log, chart, summary, every legal move); each
// game's own script draws the board, its controls and its camera panel (window.GAMES[name]).
"use strict";
window.GAMES = window.GAMES || {};
window.GamePage = (function () {
  const { h, update, api } = window.TC;
  const app = document.getElementById("app");
  const sid = app.dataset.session;
  const name = app.dataset.game;
  const base = `/api/games/${sid}`;
  let view = null;
  let changes = 0;            // live events received; a reply older than one is dropped
  let source = null;
  let fresh = true;           // the next event is the first since (re)connecting
  let timer = null;
  const MULTI = new Set(["clues", "give"]);   // fields that take a list

  function flash(text, kind) {
    const el = document.getElementById("flash");
    el.textContent = text;
    el.className = `flash ${kind || "bad"}`;
    el.hidden = !text;
    clearTimeout(flash.t);
    if (text) flash.t = setTimeout(() => { el.hidden = true; }, 6000);
  }

  // Errors go next to the control that was tapped (the player is looking there), or to
  // the top of the page when the tap came from elsewhere (a live event, the timer).
  let tapped = null;
  let tappedAt = 0;
  document.addEventListener("click", (ev) => {
    const control = ev.target.closest && ev.target.closest("button, select, input, textarea");
    if (control && !control.closest("dialog")) { tapped = control; tappedAt = Date.now(); }
  }, true);

  function complain(text, anchor) {
    document.querySelectorAll(".tap-error").forEach((el) => el.remove());
    const near = anchor || (Date.now() - tappedAt < 5000 ? tapped : null);
    if (!near || !near.isConnected || near.closest("#app") === null) { flash(text); return; }
    flash("");
    const box = h("p", { class: "tap-error", role: "alert" }, text);
    const host = near.closest(".trade, .row, form.legal, .clues, .sk-board, .pd-grid, .sh-hand") || near;
    host.after(box);
    window.TC.aside(box);     // the next drawing of that part takes it away
    box.scrollIntoView({ block: "nearest" });
    setTimeout(() => box.remove(), 8000);
  }

  function confirmBox(text) {
    const dialog = document.getElementById("confirm");
    document.getElementById("confirm-text").textContent = text;
    dialog.returnValue = "";
    dialog.showModal();
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"),
        { once: true });
    });
  }

  async function send(path, body, anchor) {
    const before = changes;
    try {
      const v = await api("POST", `${path}?light=1`, body);
      flash("");
      document.querySelectorAll(".tap-error").forEach((el) => el.remove());
      if (changes === before) merge(v);
      return v;
    } catch (err) {
      if (err.status === 409 && err.body && err.body.state) {
        setView(err.body);
        flash("Another phone played first: the board is updated, check it and try again.");
      } else if (err.message !== "no PIN entered") {
        complain(err.message, anchor);
      }
      return null;
    }
  }

  function act(action, anchor) {
    if (past) {
      complain("You are looking back at an earlier move: tap \u201cBack to now\u201d to play.", anchor);
      return Promise.resolve(null);
    }
    return send(`${base}/actions`, { action, seq: view.seq }, anchor);
  }

  async function load() {
    setView(await api("GET", base));
  }

  function setView(v) {
    view = v;
    render();
  }

  // A live event is a patch on the one before ("patch": true, "on": that event's id):
  // only what changed, objects patched the same way at every depth, then the changes
  // inside lists in "edits" (["splice", path, index, remove, items], ["set", path,
  // value], ["del", path]), then the paths of keys that went away in "gone" (web/live.py,
  // light()); the rest comes from the view the page has.
  const isObject = (x) => x && typeof x === "object" && !Array.isArray(x);
  function patched(old, patch) {
    const out = Object.assign({}, old);
    for (const [key, value] of Object.entries(patch)) {
      out[key] = isObject(value) && isObject(old[key]) ? patched(old[key], value) : value;
    }
    return out;
  }

  // What is at path in view, copied on the way (view is a copy already), so an edit
  // leaves the view it was made from alone.
  function copied(view, path) {
    let parent = view;
    for (const key of path) {
      parent[key] = Array.isArray(parent[key]) ? parent[key].slice() : Object.assign({}, parent[key]);
      parent = parent[key];
    }
    return parent;
  }

  function unpatch(event) {
    if (!event.patch) return event;
    const { patch, gone, edits, on, ...parts } = event;
    const out = patched(view, parts);
    for (const [kind, path, ...what] of edits || []) {
      const parent = copied(out, path.slice(0, -1));
      const last = path[path.length - 1];
      if (kind === "splice") {
        const [index, remove, items] = what;
        parent[last] = parent[last].slice();
        parent[last].splice(index, remove, ...items);
      } else if (kind === "set") parent[last] = what[0];
      else delete parent[last];
    }
    for (const path of gone || []) delete copied(out, path.slice(0, -1))[path[path.length - 1]];
    return out;
  }

  // A live event carries the view without the log and score history, plus the last
  // step; the log is cut back to the event's seq (an undo) and the step put on top.
  function merge(event) {
    if (!view) return load();
    const data = unpatch(event);
    const log = view.log.slice(0, data.seq);
    const timeline = view.timeline.slice(0, data.seq + 1);
    const series = view.series ? view.series.slice(0, data.seq + 1) : null;
    if (data.last) {
      log[data.seq - 1] = data.last;
      timeline[data.seq] = data.last.scores;
      if (series) series[data.seq] = data.last.series;
    }
    const complete = log.length === data.seq && timeline.length === data.seq + 1 &&
      log.every((x) => x) && timeline.every((x) => x) && (!series || series.every((x) => x));
    if (!complete) return load();
    setView(Object.assign({}, data, { log, timeline, series }));
  }

  // The stream starts from the change the page has seen (view.event), so the game comes
  // once per open (inside the page); after a reconnect a whole view brings a full reload.
  function connect() {
    if (source) source.close();
    const since = view && view.event ? `?last=${encodeURIComponent(view.event)}` : "";
    source = new EventSource(`${base}/events${since}`);
    const live = document.getElementById("live");
    let opened = false;
    fresh = false;
    source.addEventListener("open", () => {
      if (opened) fresh = true;
      opened = true;
      live.className = "live on";
    });
    source.addEventListener("error", () => { live.className = "live off"; });
    source.addEventListener("change", (ev) => {
      changes += 1;
      const data = JSON.parse(ev.data);
      const again = fresh;    // the first event since reconnecting
      fresh = false;
      if (view && ev.lastEventId === view.event) return;   // the answer to this page's tap
      // After a reconnect, or a patch on an event this page did not get: the whole game
      // again, never a patch applied to the wrong view.
      const missed = data.patch ? !view || data.on !== view.event : again;
      if (missed) { load().catch(() => {}); return; }
      merge(Object.assign(data, { event: ev.lastEventId }));
    });
    source.addEventListener("timer", (ev) => {
      timer = JSON.parse(ev.data);
      const game = window.GAMES[name];
      if (game && game.timer) game.timer(timer, ctx);
    });
  }

  // A phone that slept may hold a dead stream: check when the page shows again.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    if (!source || source.readyState === EventSource.CLOSED) connect();
    load().catch(() => {});
  });

  // A team ("Ann+Dan", where teams share a dossier) as the scoreboard names it.
  const named = (p) => (p.includes("+") ? `Team ${p.split("+").join(" & ")}` : p);

  // Whose turn, in three parts: a lead that a phone leaves out ("Game over: ", the bar
  // is green and the summary below says it), the one with the names, which a narrow
  // screen shortens ("Maximiliana Theo… to play"), and the words after it, always shown.
  function whoParts(v) {
    if (v.closed) return ["", `This game was ${v.closed}: it can be looked at, not played`, ""];
    if (v.over) {
      const w = v.winners.length ? window.TC.names(v.winners.map(named)) : "nobody";
      return ["Game over: ", w, ` ${v.winners.length > 1 ? "win" : "wins"}`];
    }
    return isMine(v) ? ["", `Your turn, ${me}${v.current !== me ? ` (${v.current})` : ""}`, ""]
      : ["", v.current, " to play"];
  }
  const who = (v) => whoParts(v).join("");

  // "I am Ben": who holds this phone, remembered on it (no account). It marks that
  // player's turn (a buzz and a beep when it comes) and puts their actions first; the
  // phone can still act for anyone, the table is one group.
  const ME_KEY = "tc:me";
  let me = localStorage.getItem(ME_KEY) || "";
  let wasMine = null;

  function mineIn(v, name) {
    if (!name || v.over) return false;
    const current = String(v.current || "");
    return current === name || current.split("+").includes(name) ||
      v.legal.some((l) => l.player && (l.player === name || l.player.split("+").includes(name)) &&
        !["tally"].includes(l.type) && l.player !== current);
  }
  function isMine(v) { return mineIn(v, me); }

  // One sound context for the page (browsers cap how many a page may open), made on the
  // first tap: a context made without one stays silent on phones.
  let audio = null;
  function sound() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) audio = new Context();
    if (audio && audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  }
  // Off the tap's path: the tap is answered and drawn first (see drshark.js).
  document.addEventListener("pointerdown", () => { if (me && !audio) afterDraw(sound); }, true);

  function beep() {
    try {
      const audio = sound();
      if (!audio) return;
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.2, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.25);
    } catch (e) { /* no sound on this phone */ }
  }

  function turnAlert(v) {
    const mine = isMine(v);
    if (mine && wasMine === false) {
      if (navigator.vibrate) navigator.vibrate([120, 60, 120]);
      beep();
    }
    wasMine = mine;
  }

  // Parts of the page drawn again only when what they show changed: a tap redraws the
  // board and the controls, not the whole page.
  const drawn = new Map();      // part -> what it was last drawn from
  function changed(part, ...what) {
    const key = JSON.stringify(what);
    if (drawn.get(part) === key) return false;
    drawn.set(part, key);
    return true;
  }

  function renderMe(v) {
    const select = document.getElementById("me");
    // A game over (or closed) has no turn to mark: the list gives its room to the turn
    // bar, which names the winners whole on a phone ("Game over: Ann wins").
    const idle = !!(v.over || v.closed);
    if (select.hidden !== idle) select.hidden = idle;
    if (me && !v.players.includes(me)) me = "";
    if (!changed("me", v.players, me)) return;
    select.replaceChildren(h("option", { value: "" }, "Who holds this phone?"),
      ...v.players.map((p) => h("option", { value: p, selected: p === me }, `I am ${p}`)));
  }

  // Selections (a chosen card, picked clues) survive a refresh of the page.
  const PICKS = `tc:${sid}:picks`;
  function kept() {
    try { return JSON.parse(sessionStorage.getItem(PICKS)) || {}; } catch (e) { return {}; }
  }
  function keep() {
    const game = window.GAMES[name];
    if (!game || !game.picks) return;
    const picks = JSON.stringify(game.picks());
    if (picks === keep.last) return;
    keep.last = picks;
    try { sessionStorage.setItem(PICKS, picks); } catch (e) { /* full */ }
  }

  // A score as the game counts it: "$213,000" in Shark, "1 point", "42 points".
  function score(n) {
    const game = window.GAMES[name] || {};
    if (game.format) return game.format(n);
    return `${window.TC.number(n)} point${n === 1 ? "" : "s"}`;
  }

  // The row of the player to act, or of their team ("Ann+Cid") where teams share scores.
  const holds = (key, who_) => !!who_ && (key === who_ || key.split("+").includes(who_));

  function renderScores(v) {
    const table = document.getElementById("scores");
    const rows = window.TC.seated(v, Object.keys(v.scores)).map((p) => h("tr", {
      class: [holds(p, v.current) ? "current" : "", v.winners.includes(p) ? "winner" : "",
        p.includes("+") ? "team" : ""].join(" "), "data-score": p,
    }, h("th", { scope: "row" }, v.winners.includes(p) ? "★ " : "",
      named(p),
      p.includes("+") && holds(p, v.current) ? h("span", { class: "muted" }, ` · ${v.current}'s turn`) : null),
    h("td", {}, score(v.scores[p]))));
    update(table, rows);
  }

  // The log shows the last LOG_LINES moves ("Earlier moves" adds more): a page draws
  // what a player reads, not the whole game at once. Each line is made once and kept (a
  // move's line never changes; an undo takes it away), so a redraw only adds the new one.
  const LOG_LINES = 40;
  let logShown = LOG_LINES;
  const lines = new Map();      // "seq text" -> its <li>
  function renderLog(v) {
    const list = document.getElementById("log");
    const want = v.log.slice(-logShown).reverse().map((e) => {
      const key = `${e.seq} ${e.text}`;
      let li = lines.get(key);
      if (!li) {
        li = h("li", { value: e.seq }, h("button", { type: "button", class: "log-line",
          title: "see the board after this move", onclick: () => lookBack(e.seq) }, e.text));
        lines.set(key, li);
      }
      li.classList.toggle("looked", !!past && past.seq === e.seq);
      return li;
    });
    want.forEach((li, i) => {
      if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
    });
    while (list.children.length > want.length) list.lastElementChild.remove();
    const kept = new Set(want);
    for (const [key, li] of lines) if (!kept.has(li)) lines.delete(key);
    const more = document.getElementById("log-more");
    const hidden = v.log.length - want.length;
    more.hidden = hidden <= 0;
    more.textContent = `Earlier moves (${hidden} more)`;
  }

  function renderSummary(v) {
    const box = document.getElementById("summary");
    box.hidden = !v.over;
    if (!v.over) return;
    const ranked = window.TC.seated(v, Object.keys(v.scores)).map((p) => [p, v.scores[p]])
      .sort((a, b) => b[1] - a[1]);
    const reason = v.reason || "";
    update(box, ...[
      h("h2", {}, who(v)),
      reason ? h("p", {}, `The game ended: ${reason}.`) : null,
      h("ol", { class: "ranking" }, ranked.map(([p, s]) =>
        h("li", { class: v.winners.includes(p) ? "winner" : "" }, `${named(p)}: ${score(s)}`))),
      (window.GAMES[name] || {}).summary ? window.GAMES[name].summary(v, ctx) : null,
      h("p", {}, `${v.seq} action${v.seq === 1 ? "" : "s"}. `, h("a", { href: "/" }, "Start a new game")),
    ].filter((x) => x));
  }

  // What a list offers: [value, label] pairs; a game may make alike choices one
  // (game.offer: Dr. Shark's identical copies of a clue are one choice, "×3").
  function offered(field, values, v) {
    const game = window.GAMES[name] || {};
    return (game.offer && game.offer(field, values, v)) ||
      values.map((val) => [val, choiceLabel(val, field, v)]);
  }

  // Each action and its fields in the rulebook's words (the game's action table, sent
  // inside the page): "Forced sale: sell shares to cover a loss", "shares".
  const wordsEl = document.getElementById("game-words");
  const WORDS = wordsEl ? JSON.parse(wordsEl.textContent) : {};
  if (wordsEl) wordsEl.remove();      // read once, like the game (no inline script stays)
  const says = (type) => (WORDS[type] || {}).says || type.replace(/_/g, " ");
  const fieldSays = (type, field) => ((WORDS[type] || {}).fields || {})[field] || field;

  // A choice as the game names it (game.label: Dr. Shark's clues by their look), else
  // as it is.
  function choiceLabel(value, field, v) {
    const game = window.GAMES[name] || {};
    const said = game.label ? game.label(field, value, v) : null;
    if (said !== null && said !== undefined) return said;
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  }

  // Every action legal() lists, as a form: the fallback that makes any game playable.
  function renderGeneric(v, into) {
    const first = v.legal.filter((o) => me && o.player === me);
    // A game may narrow a field by what the others say (Dr. Shark's service: "take"
    // lists only the clues of the dossier "from" names): game.narrow(v, option, picked).
    const narrow = (window.GAMES[name] || {}).narrow;
    const forms = first.concat(v.legal.filter((o) => !first.includes(o))).map((option) => {
      const fields = Object.entries(option.choices || {}).map(([field, values]) => {
        const label = fieldSays(option.type, field);
        if (MULTI.has(field)) {
          return h("fieldset", { class: "multi", dataset: { field, multi: "yes" } },
            h("legend", {}, label),
            values.map((val) => h("label", { class: "check" },
              h("input", { type: "checkbox", value: JSON.stringify(val) }), choiceLabel(val, field, v))));
        }
        return h("label", {}, label, " ",
          h("select", { dataset: { field } }, offered(field, values, v).map(([val, text]) =>
            h("option", { value: JSON.stringify(val) }, text))));
      });
      const form = h("form", { class: "legal", dataset: { type: option.type },
        onchange: narrow ? (ev) => refill(ev.currentTarget, v, option, narrow) : null,
        onsubmit: (ev) => { ev.preventDefault(); act(chosen(ev.currentTarget, option.type)); } },
      h("strong", {}, says(option.type)),
      option.player ? h("span", { class: "muted" }, ` (${option.player})`) : null,
      fields,
      h("button", { type: "submit", class: "primary" }, "Do it"));
      if (narrow) refill(form, v, option, narrow);
      return form;
    });
    const customForm = h("form", { class: "legal custom", onsubmit: (ev) => {
      ev.preventDefault();
      const text = ev.currentTarget.querySelector("textarea").value;
      try { act(JSON.parse(text)); } catch (e) { flash(`not JSON: ${e.message}`); }
    } }, h("strong", {}, "Any action (JSON)"),
    h("textarea", { rows: 2, "aria-label": "action as JSON", placeholder: '{"type": "..."}' }),
    h("button", { type: "submit" }, "Send"));
    update(into, ...forms, customForm);
  }

  // A generic form's lists offer only what the others allow (game.narrow).
  function refill(form, v, option, narrow) {
    const picked = {};
    for (const sel of form.querySelectorAll("select")) {
      picked[sel.dataset.field] = sel.value ? JSON.parse(sel.value) : null;
    }
    const allowed = narrow(v, option, picked) || {};
    for (const sel of form.querySelectorAll("select")) {
      const values = allowed[sel.dataset.field];
      if (!values) continue;
      const keep = sel.value;
      sel.replaceChildren(...offered(sel.dataset.field, values, v).map(([val, text]) =>
        h("option", { value: JSON.stringify(val), selected: JSON.stringify(val) === keep }, text)));
    }
  }

  // The action a generic form says: its lists' choices and its ticked boxes.
  function chosen(form, type) {
    const action = { type };
    for (const sel of form.querySelectorAll("select")) {
      action[sel.dataset.field] = JSON.parse(sel.value);
    }
    for (const fs of form.querySelectorAll("fieldset[data-multi]")) {
      action[fs.dataset.field] = [...fs.querySelectorAll("input:checked")]
        .map((c) => JSON.parse(c.value));
    }
    return action;
  }

  // Looking back: the board as it was after action n, read-only, until "Back to now".
  let past = null;     // the view after action past.seq, or null: the game as it is
  let aim = null;      // the move last asked for: a quick second tap goes on from it
  let asked = 0;       // counts the asks, so only the last one's answer is drawn
  async function lookBack(n) {
    const ask = ++asked;
    if (n === null || n >= view.seq) { aim = null; past = null; render(); return; }
    aim = Math.max(0, n);
    try {
      const v = await api("GET", `${base}/history/${aim}`);
      if (ask !== asked) return;
      past = v;
      render();
      window.scrollTo({ top: 0 });
    } catch (err) { flash(err.message); }
  }
  const step = (by) => lookBack((aim === null ? past.seq : aim) + by);

  function renderPast() {
    const box = document.getElementById("past");
    box.hidden = !past;
    if (!past) return;
    const entry = past.seq ? view.log[past.seq - 1] : null;
    update(box,
      h("strong", {}, past.seq ? `After move ${past.seq} of ${view.seq}: ` : `Before the first move (${view.seq} played): `),
      entry ? entry.text : "the game as it was set up", " ",
      h("span", { class: "muted" }, "(looking back: nothing can be played here)"),
      h("div", { class: "row" },
        h("button", { type: "button", id: "past-back", disabled: past.seq === 0,
          onclick: () => step(-1) }, "◀ Earlier"),
        h("button", { type: "button", id: "past-next", onclick: () => step(1) }, "Later ▶"),
        h("button", { type: "button", class: "primary", id: "past-now", onclick: () => lookBack(null) }, "Back to now")));
  }

  // The view drawn: the game now, or as it was after the move looked back at.
  const shown = () => (past ? Object.assign({}, past, { legal: [], log: view.log.slice(0, past.seq),
    timeline: view.timeline.slice(0, past.seq + 1) }) : view);

  function render() {
    const v = shown();
    document.body.classList.toggle("looking-back", !!past);
    const [lead, names, words] = whoParts(v);
    const turn = document.getElementById("turn");
    if (turn.textContent !== lead + names + words) {
      // One line on a phone too: a long name is cut short, the whole in its title.
      update(turn, h("span", { class: "who" }, lead ? h("span", { class: "lead" }, lead) : null, names),
        words ? h("span", { class: "then" }, words) : null);
      turn.title = lead + names + words;
      if (words) thenWidth.observe(turn.lastChild);
      else turn.style.removeProperty("--then");
    }
    turn.classList.toggle("over", v.over);
    turn.classList.toggle("mine", !past && isMine(v));
    if (!past) turnAlert(v);
    renderMe(view);
    renderPast();
    renderSummary(v);
    const game = window.GAMES[name];
    const board = document.getElementById("board");
    const controls = document.getElementById("controls");
    if (game) {
      // The camera's part goes in the side column, which scrolls with the page (in the
      // controls it made their box scroll on a tablet).
      game.render(v, ctx, board, controls, document.getElementById("camera"));
      if (!past) keep();
    } else {
      update(board, h("pre", { class: "state" }, JSON.stringify(v.state, null, 1)));
      document.getElementById("all-moves").open = true;
    }
    // The page's first drawing is the turn, the board and the controls: the scores, the
    // chart and the log (below them on a phone) follow once the browser is idle.
    if (afterwards.size) runAfterwards();
    if (sideDrawn) renderSide(v);
    else if (!sideDue) {
      sideDue = true;
      window.TC.later(() => { sideDrawn = true; renderSide(shown()); sideReady(); });
    }
  }
  let sideDue = false;
  let sideDrawn = false;
  // The room the words after the names take in the turn bar (app.css, .turn .who), as
  // the browser laid them out: known after the layout, so nothing is measured in render.
  const thenWidth = new ResizeObserver((entries) => {
    const box = entries[entries.length - 1];
    if (!box.target.isConnected) return;
    const width = `${Math.ceil(box.borderBoxSize[0].inlineSize)}px`;
    const turn = document.getElementById("turn");
    if (turn.style.getPropertyValue("--then") !== width) turn.style.setProperty("--then", width);
  });

  // afterDraw(f): f runs once the browser is idle after the page's next drawing (a tap's
  // answer, a live change): work a tap starts that the tap's answer need not wait for (a
  // sound context takes a fifth of a second to make on a slow phone, and the wait for
  // the network is idle time too).
  const afterwards = new Set();
  function afterDraw(f) {
    afterwards.add(f);
  }
  function runAfterwards() {
    for (const f of afterwards) window.TC.later(f);
    afterwards.clear();
  }

  // soon(id, make): a box for the parts of a game's controls that no turn acts on (Shark's
  // stock tables and chart, Dr. Shark's dossiers and tally), filled with make()'s parts
  // once the browser is idle, after the drawing an open or a tap asked for: the first
  // drawing is what a phone shows above the fold, a tap's answer the turn, the board and
  // what to do next. Until then the box shows what it last showed (it is kept through
  // the controls' update); the last make() asked for wins.
  const due = new Map();      // box id -> make
  function soon(id, make) {
    const box = window.TC.reuse(document.getElementById(id), `soon ${id}`,
      () => h("div", { id, class: "soon" }));
    if (!due.size) window.TC.later(drawDue);
    due.set(id, make);
    return box;
  }
  function drawDue() {
    for (const [id, make] of [...due]) {
      due.delete(id);
      const box = document.getElementById(id);
      if (box) update(box, make());
    }
  }
  let sideReady = () => {};
  const sideDone = new Promise((ok) => { sideReady = ok; });

  function renderSide(v) {
    renderScores(v);
    renderLog(view);
    // One line per score: per player, or per team where teams share a dossier.
    const scored = window.TC.seated(v, Object.keys(v.scores));
    // A score line changes only at its end (a move adds a point, an undo takes the last).
    // Drawn once the browser is idle after the drawing: a tap's answer is the turn, the
    // board, the scores and the log, the chart follows (the latest view's, if several
    // changes came meanwhile).
    if (changed("chart", scored, v.timeline.length, v.timeline[v.timeline.length - 1])) {
      if (!chartDue) window.TC.later(drawChart);
      chartDue = true;
    }
    const every = document.getElementById("all-moves");
    if (every.open) renderGeneric(v, document.getElementById("generic"));
    document.getElementById("undo").disabled = v.seq === 0 || !!past;
    document.getElementById("redo").disabled = !!past;
  }

  let chartDue = false;
  function drawChart() {
    chartDue = false;
    const v = shown();
    window.Chart.draw(document.getElementById("chart"), window.TC.seated(v, Object.keys(v.scores)),
      v.timeline, null, (window.GAMES[name] || {}).format);
  }

  async function undo() {
    const last = view.log[view.log.length - 1];
    if (!last) return;
    if (!(await confirmBox(`Undo "${last.text}"?`))) return;
    const v = await send(`${base}/undo`, { seq: view.seq });
    if (v) flash(`Undone: ${last.text}`, "good");
  }

  async function redo() {
    await send(`${base}/redo`, {});
  }

  const ctx = { h, act, send, flash, complain, confirm: confirmBox, base, sid, kept, soon, afterDraw,
    me: () => me, view: () => view, timer: () => timer, past: () => !!past,
    browserTimer: app.dataset.browserTimer === "yes", rerender: () => view && render() };

  function start() {
    // What the browser scrolls to (a focused control, a tap error) stops below the pinned
    // status, not under it. Measured when the status changes size, after the frame's
    // layout: reading it in render() made the browser lay out the page in the script.
    const status = document.getElementById("status");
    // The status's height also sizes a tablet's controls box (--status-height in
    // app.css), so the box ends on the screen: what is at its foot can be seen. Set on
    // the box, not the page: a custom property set on the page's root is inherited by
    // every element, and all of them were styled again (a tenth of a second on a slow
    // phone's first drawing of a Shoal game).
    const card = document.getElementById("controls-card");
    new ResizeObserver(() => {
      const padding = `${status.offsetHeight + 8}px`;
      const root = document.documentElement.style;
      if (root.scrollPaddingTop !== padding) {
        root.scrollPaddingTop = padding;
        card.style.setProperty("--status-height", `${status.offsetHeight}px`);
      }
    }).observe(status);
    document.getElementById("undo").addEventListener("click", undo);
    document.getElementById("redo").addEventListener("click", redo);
    document.getElementById("log-more").addEventListener("click", () => {
      logShown += 100;
      renderLog(view);
    });
    // Every legal move as a form is drawn only while that section is open.
    document.getElementById("all-moves").addEventListener("toggle", () => view && render());
    document.getElementById("me").addEventListener("change", (ev) => {
      me = ev.target.value;
      if (me) { localStorage.setItem(ME_KEY, me); sound(); } else localStorage.removeItem(ME_KEY);
      wasMine = null;
      render();
    });
    // The page brings the game with it (web/pages.py); a page without it fetches it.
    const given = document.getElementById("game-view");
    const first = given ? new Promise((ok) => ok(JSON.parse(given.textContent))).then(setView)
      : load();
    if (given) given.remove();
    // Live once the whole page is drawn (a page showing "live" shows everything).
    first.then(() => sideDone).then(connect).catch((err) => flash(err.message));
  }
  return { start, ctx };
})();
