// A game page: the view from the API, kept live by Server-Sent Events; the parts every
// game shares (whose turn, scores, undo, log, chart, summary, every legal move); each
// game's own script draws the board and its controls (window.GAMES[name]).
"use strict";
window.GAMES = window.GAMES || {};
window.GamePage = (function () {
  const { h, api } = window.TC;
  const app = document.getElementById("app");
  const sid = app.dataset.session;
  const name = app.dataset.game;
  const base = `/api/games/${sid}`;
  let view = null;
  let changes = 0;            // live events received; a reply older than one is dropped
  let source = null;
  let fresh = true;           // the next event is the first since (re)connecting
  let timer = null;
  const MULTI = new Set(["clues"]);

  function flash(text, kind) {
    const el = document.getElementById("flash");
    el.textContent = text;
    el.className = `flash ${kind || "bad"}`;
    el.hidden = !text;
    clearTimeout(flash.t);
    if (text) flash.t = setTimeout(() => { el.hidden = true; }, 6000);
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

  async function send(path, body) {
    const before = changes;
    try {
      const v = await api("POST", path, body);
      flash("");
      if (changes === before) setView(v);
      return v;
    } catch (err) {
      if (err.status === 409 && err.body && err.body.state) {
        setView(err.body);
        flash("Another phone played first: the board is updated, check it and try again.");
      } else if (err.message !== "no PIN entered") {
        flash(err.message);
      }
      return null;
    }
  }

  function act(action) {
    return send(`${base}/actions`, { action, seq: view.seq });
  }

  async function load() {
    setView(await api("GET", base));
  }

  function setView(v) {
    view = v;
    render();
  }

  // A live event is a patch on the one before ("patch": true): only what changed, objects
  // patched the same way three levels down, and the paths of keys that went away in
  // "gone" (web/live.py, light()); the rest comes from the view the page has.
  function patched(old, patch, depth) {
    const out = Object.assign({}, old);
    for (const [key, value] of Object.entries(patch)) {
      const both = value && typeof value === "object" && !Array.isArray(value) &&
        old[key] && typeof old[key] === "object" && !Array.isArray(old[key]);
      out[key] = both && depth < 2 ? patched(old[key], value, depth + 1) : value;
    }
    return out;
  }

  function unpatch(event) {
    if (!event.patch) return event;
    const { patch, gone, ...parts } = event;
    const out = patched(view, parts, 0);
    for (const path of gone || []) {
      let parent = out;
      for (const key of path.slice(0, -1)) parent = parent && parent[key];
      if (parent) delete parent[path[path.length - 1]];
    }
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

  function connect() {
    if (source) source.close();
    source = new EventSource(`${base}/events`);
    const live = document.getElementById("live");
    source.addEventListener("open", () => { fresh = true; live.className = "live on"; });
    source.addEventListener("error", () => { live.className = "live off"; });
    source.addEventListener("change", (ev) => {
      changes += 1;
      const data = JSON.parse(ev.data);
      if (fresh) { fresh = false; load().catch(() => {}); return; }
      merge(data);
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

  function who(v) {
    if (v.over) {
      const w = v.winners.length ? v.winners.join(" and ") : "nobody";
      return `Game over: ${w} ${v.winners.length > 1 ? "share the win" : "wins"}`;
    }
    return `${v.current} to play`;
  }

  function renderScores(v) {
    const table = document.getElementById("scores");
    const rows = Object.entries(v.scores).map(([p, s]) => h("tr", {
      class: [p === v.current ? "current" : "", v.winners.includes(p) ? "winner" : ""].join(" "),
    }, h("th", { scope: "row" }, v.winners.includes(p) ? "★ " : "", p), h("td", {}, s)));
    table.replaceChildren(...rows);
  }

  function renderLog(v) {
    const items = v.log.slice(-150).reverse().map((e) => h("li", { value: e.seq }, e.text));
    document.getElementById("log").replaceChildren(...items);
  }

  function renderSummary(v) {
    const box = document.getElementById("summary");
    box.hidden = !v.over;
    if (!v.over) return;
    const ranked = Object.entries(v.scores).sort((a, b) => b[1] - a[1]);
    const reason = v.reason || "";
    box.replaceChildren(...[
      h("h2", {}, who(v)),
      reason ? h("p", {}, `The game ended: ${reason}.`) : null,
      h("ol", { class: "ranking" }, ranked.map(([p, s]) =>
        h("li", { class: v.winners.includes(p) ? "winner" : "" }, `${p}: ${s}`))),
      h("p", {}, `${v.seq} actions. `, h("a", { href: "/" }, "Start a new game")),
    ].filter((x) => x));
  }

  function choiceLabel(value) {
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  }

  // Every action legal() lists, as a form: the fallback that makes any game playable.
  function renderGeneric(v, into) {
    const forms = v.legal.map((option) => {
      const fields = Object.entries(option.choices || {}).map(([field, values]) => {
        if (MULTI.has(field)) {
          return h("fieldset", { class: "multi", dataset: { field, multi: "yes" } },
            h("legend", {}, field),
            values.map((val) => h("label", { class: "check" },
              h("input", { type: "checkbox", value: JSON.stringify(val) }), choiceLabel(val))));
        }
        return h("label", {}, field, " ",
          h("select", { dataset: { field } },
            values.map((val) => h("option", { value: JSON.stringify(val) }, choiceLabel(val)))));
      });
      const form = h("form", { class: "legal", dataset: { type: option.type } },
        h("strong", {}, option.type.replace(/_/g, " ")),
        option.player ? h("span", { class: "muted" }, ` (${option.player})`) : null,
        fields,
        h("button", { type: "submit", class: "primary" }, "Do it"));
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        const action = { type: option.type };
        for (const sel of form.querySelectorAll("select")) {
          action[sel.dataset.field] = JSON.parse(sel.value);
        }
        for (const fs of form.querySelectorAll("fieldset[data-multi]")) {
          action[fs.dataset.field] = [...fs.querySelectorAll("input:checked")]
            .map((c) => JSON.parse(c.value));
        }
        act(action);
      });
      return form;
    });
    const custom = h("textarea", { rows: 2, "aria-label": "action as JSON",
      placeholder: '{"type": "..."}' });
    const customForm = h("form", { class: "legal custom" }, h("strong", {}, "Any action (JSON)"),
      custom, h("button", { type: "submit" }, "Send"));
    customForm.addEventListener("submit", (ev) => {
      ev.preventDefault();
      try { act(JSON.parse(custom.value)); } catch (e) { flash(`not JSON: ${e.message}`); }
    });
    into.replaceChildren(...forms, customForm);
  }

  function render() {
    const v = view;
    document.getElementById("turn").textContent = who(v);
    document.getElementById("turn").classList.toggle("over", v.over);
    renderScores(v);
    renderLog(v);
    renderSummary(v);
    window.Chart.draw(document.getElementById("chart"), v.players, v.timeline);
    renderGeneric(v, document.getElementById("generic"));
    document.getElementById("undo").disabled = v.seq === 0;
    const game = window.GAMES[name];
    const board = document.getElementById("board");
    const controls = document.getElementById("controls");
    if (game) {
      game.render(v, ctx, board, controls);
    } else {
      board.replaceChildren(h("pre", { class: "state" }, JSON.stringify(v.state, null, 1)));
      document.getElementById("all-moves").open = true;
    }
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

  const ctx = { h, act, send, flash, confirm: confirmBox, base, sid,
    view: () => view, timer: () => timer,
    browserTimer: app.dataset.browserTimer === "yes", rerender: () => view && render() };

  function start() {
    document.getElementById("undo").addEventListener("click", undo);
    document.getElementById("redo").addEventListener("click", redo);
    load().then(connect).catch((err) => flash(err.message));
  }
  return { start, ctx };
})();
