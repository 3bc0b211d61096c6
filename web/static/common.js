// Shared by every page: building elements safely, the JSON API, the table PIN.
"use strict";
window.TC = (function () {
  // h("p", {class: "x"}, "text", child): every string becomes a text node, so names
  // typed by players are never read as HTML.
  function h(tag, attrs, ...children) {
    const svg = ["svg", "rect", "line", "polyline", "circle", "text", "g", "path", "title"];
    const el = svg.includes(tag)
      ? document.createElementNS("http://www.w3.org/2000/svg", tag)
      : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
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

  document.addEventListener("DOMContentLoaded", setupPin);
  return { h, api, askPin, ApiError, number };
})();
