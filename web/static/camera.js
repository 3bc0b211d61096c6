// The camera views' unsure cells (Shoal and Tokyo Poo Divers): each unsure cell's crop
// beside the values it could be; one tap says which it is. Until every unsure cell is
// settled the reading gives no score and no verdict.
"use strict";
window.CAMERA = (function () {
  const NO_CARD = "no-card";  // the reader's value for bare mat

  // The reading's cells with the player's fixes applied ("" or no-card: no card there).
  function resolved(result, fixes) {
    const cells = Object.assign({}, result.cells || {});
    for (const [cell, value] of Object.entries(fixes)) {
      if (value && value !== NO_CARD) cells[cell] = value;
      else delete cells[cell];
    }
    return cells;
  }

  // The unsure cells no one has settled yet.
  function open(result, fixes) {
    return (result.unsure || []).filter((u) => !(u.cell in fixes));
  }

  // One row per unsure cell: its crop, then a button per candidate (the value read first).
  function panel(h, result, fixes, label, onFix) {
    const unsure = result.unsure || [];
    if (!unsure.length) return null;
    const left = open(result, fixes).length;
    return h("div", { class: "unsure", id: "unsure", role: "group",
      "aria-label": "cells the camera is unsure of" },
    h("p", { class: left ? "pending" : "muted", id: "unsure-note" }, left
      ? `The camera is unsure of ${left} cell${left === 1 ? "" : "s"}: tap what each shows.`
      : "Every unsure cell is settled."),
    unsure.map((u) => h("div", { class: `unsure-cell${u.cell in fixes ? " settled" : ""}`,
      "data-unsure": u.cell },
    u.crop ? h("img", { src: u.crop, class: "unsure-crop", alt: `${u.cell} as the camera saw it` })
      : h("span", { class: "unsure-crop none" }, "no picture"),
    h("div", { class: "unsure-choices" }, h("strong", {}, u.cell),
      u.candidates.map((c) => {
        const chosen = u.cell in fixes && fixes[u.cell] === (c.value || "");
        return h("button", { type: "button", class: `big${chosen ? " primary" : ""}`,
          "data-value": c.value || "", "aria-pressed": chosen ? "true" : "false",
          onclick: () => onFix(u.cell, c.value || "") },
        label(c.value), h("span", { class: "muted" }, ` ${Math.round(c.p * 100)}%`));
      }), another(h, u, result.values || [], fixes, label, onFix)))));
  }

  // Every other value the cell can be, for a card none of the candidates is: a glare-
  // washed section may not be among the few the camera offers.
  function another(h, u, values, fixes, label, onFix) {
    const offered = new Set(u.candidates.map((c) => c.value || ""));
    const rest = values.filter((v) => !offered.has(v));
    if (!rest.length) return null;
    const picked = u.cell in fixes && !offered.has(fixes[u.cell]) ? fixes[u.cell] : "";
    return h("select", { class: `another${picked ? " primary" : ""}`,
      "aria-label": `${u.cell}: another value`,
      onchange: (ev) => { if (ev.currentTarget.value) onFix(u.cell, ev.currentTarget.value); } },
    h("option", { value: "", selected: !picked }, "another\u2026"),
    rest.map((v) => h("option", { value: v, selected: v === picked }, label(v))));
  }

  return { resolved, open, panel };
})();
