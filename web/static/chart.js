// The score-over-time chart, drawn as SVG: one line per player (or team), one point per
// action.
"use strict";
window.Chart = (function () {
  const { h } = window.TC;
  const COLOURS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4",
    "#f032e6", "#9a6324"];

  // colours: optional {name: css colour}; by default a palette in seat order.
  // format: how a value reads on the axis (money: "$213,000"); the left margin is
  // made wide enough for the longest label, so no number is ever cut.
  function draw(into, players, timeline, colours, format) {
    const colour = (p, i) => (colours && colours[p]) || COLOURS[i % COLOURS.length];
    // Teams share a score ("Ann+Dan"): one line each, named as the scoreboard names it.
    const named = (p) => (p.includes("+") ? `Team ${p.split("+").join(" & ")}` : p);
    const fmt = format || window.TC.number;
    const n = Math.max(1, timeline.length - 1);
    let top = 1;
    for (const row of timeline) for (const p of players) top = Math.max(top, row[p] || 0);
    let bottom = 0;
    for (const row of timeline) for (const p of players) bottom = Math.min(bottom, row[p] || 0);
    const labels = [fmt(top), fmt(bottom)];
    const W = 320, H = 160, B = 18, T = 8, R = 8;
    const L = 10 + 6.2 * Math.max(...labels.map((t) => t.length));   // 10 px type
    const x = (i) => L + (i / n) * (W - L - R);
    const y = (s) => T + (1 - (s - bottom) / (top - bottom || 1)) * (H - T - B);
    const svg = h("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg", role: "img",
      "aria-label": "scores after each action" });
    svg.append(h("line", { x1: L, y1: y(bottom), x2: W - R, y2: y(bottom), class: "axis" }));
    svg.append(h("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }));
    svg.append(h("text", { x: L - 4, y: T + 8, class: "tick", "text-anchor": "end" }, labels[0]));
    svg.append(h("text", { x: L - 4, y: y(bottom), class: "tick", "text-anchor": "end" },
      labels[1]));
    svg.append(h("text", { x: W - R, y: H - 4, class: "tick", "text-anchor": "end" },
      `${timeline.length - 1} action${timeline.length === 2 ? "" : "s"}`));
    players.forEach((p, i) => {
      const points = timeline.map((row, j) => `${x(j).toFixed(1)},${y(row[p] || 0).toFixed(1)}`);
      svg.append(h("polyline", { points: points.join(" "), fill: "none",
        stroke: colour(p, i), "stroke-width": 2.5, "data-line": p }, h("title", {}, named(p))));
    });
    const legend = h("div", { class: "legend" }, players.map((p, i) =>
      h("span", { class: "key" }, h("svg", { viewBox: "0 0 10 10", width: 12, height: 12 },
        h("rect", { width: 10, height: 10, fill: colour(p, i) })), ` ${named(p)}`)));
    window.TC.update(into, svg, legend);
  }
  return { draw, COLOURS };
})();
