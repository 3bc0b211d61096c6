// Shared by every page: building elements safely, the JSON API, the table PIN.
"use strict";
window.TC = (function () {
  // h("p", {class: "x"}, "text", child): every string becomes a text node, so names
  // typed by players are never read as HTML.
  // A page's drawing makes a few hundred elements at a time: no list is made per
  // element (the attributes and children are walked as they are).
  const SVG = new Set(["svg", "rect", "line", "polyline", "circle", "text", "g", "path", "title"]);
  function h(tag, attrs, ...children) {
    const el = SVG.has(tag)
      ? document.createElementNS("http://www.w3.org/2000/svg", tag)
      : document.createElement(tag);
    for (const k in attrs) {
      const v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) listen(el, k.slice(2), v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    add(el, children);
    return el;
  }
  function add(el, children) {       // lists inside lists, in order, at any depth
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) add(el, c);
      else {
        if (c.keeps) el.stands = true;    // holds a stand-in (reuse): see settled()
        el.append(c instanceof Node ? c : document.createTextNode(String(c)));
      }
    }
  }

  // A handler given to h() is kept on the element (el.handlers) and called through one
  // listener per event type, so update() can hand a kept element the handlers of the
  // element drawn in its place: a handler always sees the view it was drawn from.
  function handle(ev) {
    const f = this.handlers && this.handlers[ev.type];
    return f ? f.call(this, ev) : undefined;
  }
  function listen(el, type, f) {
    el.handlers = el.handlers || {};
    el.handlers[type] = f;
    el.addEventListener(type, handle);
  }

  // update(parent, ...children): like parent.replaceChildren(...children) for children
  // just made with h(), but the elements already there are kept and changed only where
  // the new ones differ (attributes, text, handlers; what a player typed or chose stays
  // unless the page changes it). A tap then changes a few nodes, not the whole board,
  // and the browser lays out and paints only what changed. A node put in by hand and
  // marked with TC.aside(node) goes at the next update of its parent.
  function update(parent, ...children) {
    sync(parent, children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)
      .map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))));
  }

  function sync(parent, fresh) {
    const old = parent.childNodes;
    if (parent.aside) {       // a note put in by the page (an error by a tap) goes
      for (const c of [...old]) if (c.aside) c.remove();
      parent.aside = false;
    }
    let kept = null;          // the parts kept (reuse) among fresh, when one is looked for
    for (let i = 0; i < fresh.length; i++) {
      const here = old[i];
      const node = fresh[i].keeps || fresh[i];  // a part kept as it was (reuse)
      if (here === node) continue;
      else if (!here) parent.append(settled(node));
      else if (node.isConnected) {
        // A kept part further on: what lies before it went away (a button fewer above a
        // box of tables), unless that is kept too. Taking those away is cheaper than
        // moving the kept part, which the browser lays out and paints again.
        kept = kept || keptIn(fresh);
        let gone = node.parentNode === parent;
        for (let c = here; gone && c !== node; c = c.nextSibling) if (!c || kept.has(c)) gone = false;
        if (gone) while (old[i] !== node) old[i].remove();
        else parent.insertBefore(node, here);   // kept, moved
      }
      else if ((kept = kept || keptIn(fresh)).has(here)) parent.insertBefore(settled(node), here);
      else if (!same(here, node)) here.replaceWith(settled(node));
      else morph(here, node);
    }
    while (old.length > fresh.length) parent.lastChild.remove();
  }
  const keptIn = (fresh) => new Set(fresh.map((f) => f.keeps).filter((k) => k));

  // A new element that goes in as it is (not morphed into one shown) takes the parts
  // its stand-ins keep (reuse) in their places: a board whose cells were kept one by
  // one, put in where something else was.
  function settled(node) {
    if (!node.stands) return node;
    node.stands = false;
    for (const c of [...node.childNodes]) if (c.keeps) c.replaceWith(c.keeps);
    return node;
  }

  function aside(node) {
    node.aside = true;
    if (node.parentNode) node.parentNode.aside = true;
    return node;
  }

  const same = (a, b) => a.nodeType === b.nodeType && a.nodeName === b.nodeName &&
    (a.nodeType !== 1 || (a.id === b.id && a.getAttribute("type") === b.getAttribute("type")));

  // The handlers of fresh's elements go to el's (the two are alike, node for node).
  function takeHandlers(el, fresh) {
    const mine = el.getElementsByTagName("*");
    const theirs = fresh.getElementsByTagName("*");
    swap(el, fresh);
    for (let i = 0; i < theirs.length; i++) {
      if (theirs[i].handlers || mine[i].handlers || theirs[i].drawnFrom) swap(mine[i], theirs[i]);
    }
  }
  function swap(el, fresh) {
    for (const type in fresh.handlers || {}) el.addEventListener(type, handle);
    el.handlers = fresh.handlers;
    el.drawnFrom = fresh.drawnFrom;
  }

  // reuse(shown, key, make): the part of the page already shown if it was drawn from
  // the same key (what it shows: a player's layout, the board and its targets), else
  // make()'s new one. A change then builds only the parts it changed. The part is kept
  // through a stand-in that update() puts it back for: placed inside a new h() element,
  // the part itself would leave the page at once.
  function reuse(shown, key, make) {
    if (shown && shown.drawnFrom === key) {
      const stand = document.createElement(shown.nodeName);
      stand.keeps = shown;
      return stand;
    }
    const el = make();
    el.drawnFrom = key;
    return el;
  }

  function morph(el, fresh) {
    if (el.nodeType !== 1) {
      if (el.nodeValue !== fresh.nodeValue) el.nodeValue = fresh.nodeValue;
      return;
    }
    if (el.isEqualNode(fresh)) { takeHandlers(el, fresh); return; }
    const value = el.getAttribute("value");
    const checked = el.hasAttribute("checked");
    const theirs = fresh.attributes;
    for (let i = el.attributes.length - 1; i >= 0; i--) {
      const { name } = el.attributes[i];
      if (!fresh.hasAttribute(name)) el.removeAttribute(name);
    }
    for (let i = 0; i < theirs.length; i++) {
      const { name, value: v } = theirs[i];
      if (el.getAttribute(name) === v) continue;
      if (name === "style") el.style.cssText = v;   // the page's policy refuses style=""
      else el.setAttribute(name, v);
    }
    swap(el, fresh);
    const chosen = fresh.selectedIndex;     // a list's choice, before its options move
    sync(el, [...fresh.childNodes]);
    // What the page sets: a new value or check for a field, the choice in a list.
    if (el.nodeName === "SELECT") el.selectedIndex = chosen;
    else if (el.nodeName === "INPUT" || el.nodeName === "TEXTAREA") {
      if (fresh.getAttribute("value") !== value) el.value = fresh.value;
      if (fresh.hasAttribute("checked") !== checked) el.checked = fresh.checked;
    }
  }

  // Runs f once the page is idle (after the drawing a tap or an event asked for).
  function later(f) {
    if (window.requestIdleCallback) requestIdleCallback(f, { timeout: 2000 });
    else setTimeout(f, 300);
  }

  // 213000 -> "213,000", as en-US writes it. Not toLocaleString: its first call loads
  // the browser's locale data, a tenth of a second on a slow phone before anything draws.
  function number(n) {
    const x = Number(n);
    const [whole, part] = String(Math.abs(x)).split(".");
    const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return `${x < 0 ? "-" : ""}${grouped}${part ? `.${part}` : ""}`;
  }

  let csrf = document.querySelector('meta[name="csrf-token"]').content;
  let pinWaiters = [];

  // What kind of refusal a 400 is (the engine's IllegalAction kinds), said first.
  const REFUSALS = {
    malformed: "Not understood",
    not_your_turn: "Not your turn",
    rule: "Against the rules",
  };

  class ApiError extends Error {
    constructor(status, body) {
      const text = (body && body.error) || `the companion answered ${status}`;
      const kind = body && body.kind;
      super(REFUSALS[kind] ? `${REFUSALS[kind]}: ${text}` : text);
      this.status = status;
      this.kind = kind || null;
      this.body = body || {};
    }
  }

  async function api(method, path, body, extra) {
    const opts = { method, headers: { "X-CSRF-Token": csrf }, credentials: "same-origin" };
    if (body instanceof FormData) opts.body = body;
    else if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    Object.assign(opts, extra || {});
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (res.status === 401 && !(extra && extra.noPin)) {
      await askPin();
      return api(method, path, body, extra);
    }
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  }

  // The PIN dialog; resolves once a correct PIN is entered.
  function askPin() {
    const dialog = document.getElementById("pin-dialog");
    if (!dialog.open) {
      document.getElementById("pin-error").textContent = "";
      dialog.showModal();
      document.getElementById("pin-input").focus();
    }
    return new Promise((resolve, reject) => pinWaiters.push({ resolve, reject }));
  }

  function pinAccepted(ok) {
    const button = document.getElementById("pin-button");
    button.textContent = ok ? "PIN ✓" : "Enter PIN";
    button.classList.toggle("ok", ok);
  }

  function setupPin() {
    const dialog = document.getElementById("pin-dialog");
    const form = document.getElementById("pin-form");
    document.getElementById("pin-button").addEventListener("click", () => {
      askPin().catch(() => {});
    });
    document.getElementById("pin-cancel").addEventListener("click", () => {
      dialog.close();
      pinWaiters.splice(0).forEach((w) => w.reject(new Error("no PIN entered")));
    });
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const input = document.getElementById("pin-input");
      try {
        const data = await api("POST", "/api/pin", { pin: input.value }, { noPin: true });
        csrf = data.csrf;
        input.value = "";
        dialog.close();
        pinAccepted(true);
        pinWaiters.splice(0).forEach((w) => w.resolve());
      } catch (err) {
        document.getElementById("pin-error").textContent = err.message;
      }
    });
  }

  // The keys of an object by player or team ("Ann+Cid") in seat order, not in the keys'
  // order: a live patch keeps a key's place where a whole view would put it elsewhere.
  function seated(v, keys) {
    const seat = (k) => {
      const i = v.players.indexOf(k);
      return i >= 0 ? i : v.players.indexOf(String(k).split("+")[0]);
    };
    return [...keys].sort((a, b) => seat(a) - seat(b));
  }

  document.addEventListener("DOMContentLoaded", setupPin);
  // Names as a sentence says them: "Ann", "Ann and Ben", "Ann, Ben and Cid".
  function names(list) {
    return list.length > 1 ? `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`
      : list.join("");
  }

  return { h, update, reuse, aside, later, api, askPin, ApiError, number, seated, names };
})();
