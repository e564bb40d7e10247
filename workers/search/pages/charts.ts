/**
 * The dashboards' charts: a small SVG renderer in the page's script, not
 * Vega. Vega compiles its expressions with `new Function`, which the pages'
 * CSP (script-src: this response's nonce only, middleware/security.ts)
 * forbids, and its CSP-safe interpreter would ship about 1 MB of script to
 * draw three charts; workerd forbids code generation from strings too, so
 * pre-rendering in the Worker meets the same wall. These charts are a few
 * lines and one band each.
 *
 * Accessible: each chart is a <figure> whose <svg role="img"> has a <title>
 * and a <desc>, each point a <title> read on hover, and the values are in a
 * table beside it (<details>). Every value goes in through textContent or
 * setAttribute on a number, never as markup.
 */

export const CHART_STYLE = `
  figure.chart { margin: 1rem 0 1.5rem; }
  figure.chart svg { width: 100%; height: auto; display: block; background: #fcfcfd; border: 1px solid #e3e3e8; border-radius: 6px; }
  figure.chart figcaption { font-weight: 600; margin-bottom: .3rem; }
  figure.chart .legend { font-size: 13px; color: #444; display: flex; gap: 1rem; flex-wrap: wrap; margin: .3rem 0; }
  figure.chart .swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .3rem; vertical-align: -1px; }
  figure.chart details { font-size: 13px; margin-top: .3rem; }
  figure.chart table { border-collapse: collapse; }
  figure.chart td, figure.chart th { padding: .15rem .5rem; border-bottom: 1px solid #eee; text-align: right; font-variant-numeric: tabular-nums; }
`;

/** lineChart(spec) and barChart(spec) return a <figure>; see each for its spec. */
export const CHART_SCRIPT = `
  var SVGNS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#1a3d8f", "#c2410c", "#0a7a3c", "#7c3aed", "#b91c1c", "#0e7490", "#a16207", "#4b5563"];
  var CHART = { w: 640, h: 260, left: 64, right: 16, top: 14, bottom: 40 };
  function svgEl(tag, attrs, title) {
    var n = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, String(attrs[k])); });
    if (title !== undefined) { var t = document.createElementNS(SVGNS, "title"); t.textContent = title; n.appendChild(t); }
    return n;
  }
  function linear(d0, d1, r0, r1) { var span = d1 - d0 || 1; return function (v) { return r0 + ((v - d0) * (r1 - r0)) / span; }; }
  function ticks(lo, hi, n) { var out = []; for (var j = 0; j <= n; j++) out.push(lo + ((hi - lo) * j) / n); return out; }
  // The frame every chart shares: svg with title and desc, axes, y ticks, a caption, a legend and a values table.
  function frame(spec, yLo, yHi) {
    var fig = document.createElement("figure"); fig.className = "chart";
    var id = "c" + Math.random().toString(36).slice(2);
    fig.appendChild(text("figcaption", spec.title));
    var svg = svgEl("svg", { viewBox: "0 0 " + CHART.w + " " + CHART.h, role: "img", "aria-labelledby": id + "t " + id + "d" });
    var t = svgEl("title", { id: id + "t" }); t.textContent = spec.title; svg.appendChild(t);
    var d = svgEl("desc", { id: id + "d" }); d.textContent = spec.desc; svg.appendChild(d);
    var y = linear(yLo, yHi, CHART.h - CHART.bottom, CHART.top);
    ticks(yLo, yHi, 4).forEach(function (v) {
      svg.appendChild(svgEl("line", { x1: CHART.left, x2: CHART.w - CHART.right, y1: y(v), y2: y(v), stroke: "#e6e6ea" }));
      var l = svgEl("text", { x: CHART.left - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#555" }); l.textContent = spec.yFormat(v); svg.appendChild(l);
    });
    var yl = svgEl("text", { x: 12, y: CHART.top + (CHART.h - CHART.top - CHART.bottom) / 2, "font-size": 11, fill: "#333", transform: "rotate(-90 12 " + (CHART.top + (CHART.h - CHART.top - CHART.bottom) / 2) + ")", "text-anchor": "middle" });
    yl.textContent = spec.yLabel; svg.appendChild(yl);
    fig.appendChild(svg);
    var legend = document.createElement("div"); legend.className = "legend";
    (spec.legend || []).forEach(function (g, j) {
      var s = document.createElement("span"); var sw = text("span", "", "swatch"); sw.style.background = PALETTE[j % PALETTE.length];
      s.appendChild(sw); s.appendChild(document.createTextNode(g)); legend.appendChild(s);
    });
    fig.appendChild(legend);
    var det = document.createElement("details"); det.appendChild(text("summary", "Values"));
    var table = document.createElement("table"); var head = document.createElement("tr");
    spec.columns.forEach(function (c) { head.appendChild(text("th", c)); }); table.appendChild(head);
    spec.rows.forEach(function (r) { var tr = document.createElement("tr"); r.forEach(function (v) { tr.appendChild(text("td", v)); }); table.appendChild(tr); });
    det.appendChild(table); fig.appendChild(det);
    return { fig: fig, svg: svg, y: y };
  }
  function xLabels(svg, x, at, fmt) {
    var seen = {};
    at.forEach(function (v) {
      var s = fmt(v); if (seen[s]) return; seen[s] = true;
      var l = svgEl("text", { x: x(v), y: CHART.h - CHART.bottom + 16, "text-anchor": "middle", "font-size": 11, fill: "#555" }); l.textContent = s; svg.appendChild(l);
    });
  }
  // spec: { title, desc, yLabel, yFormat, xFormat, reference (a y drawn dashed, or null), columns, rows,
  //         series: [{ name, points: [{ x, y, lo?, hi?, tip }] }] }: lines, with a band where points have lo and hi.
  function lineChart(spec) {
    var all = []; spec.series.forEach(function (s) { s.points.forEach(function (p) { all.push(p.y); if (p.lo !== undefined) { all.push(p.lo, p.hi); } }); });
    if (spec.reference !== null && spec.reference !== undefined) all.push(spec.reference);
    var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    if (!(hi > lo)) { lo -= 0.01; hi += 0.01; }
    var pad = (hi - lo) * 0.08; lo -= pad; hi += pad;
    var xs = []; spec.series.forEach(function (s) { s.points.forEach(function (p) { xs.push(p.x); }); });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var f = frame({ title: spec.title, desc: spec.desc, yLabel: spec.yLabel, yFormat: spec.yFormat, legend: spec.series.map(function (s) { return s.name; }), columns: spec.columns, rows: spec.rows }, lo, hi);
    var x = x1 > x0 ? linear(x0, x1, CHART.left + 8, CHART.w - CHART.right - 8) : function () { return (CHART.left + CHART.w - CHART.right) / 2; };
    if (spec.reference !== null && spec.reference !== undefined)
      f.svg.appendChild(svgEl("line", { x1: CHART.left, x2: CHART.w - CHART.right, y1: f.y(spec.reference), y2: f.y(spec.reference), stroke: "#333", "stroke-dasharray": "4 3" }));
    spec.series.forEach(function (s, j) {
      var color = PALETTE[j % PALETTE.length];
      var banded = s.points.filter(function (p) { return p.lo !== undefined; });
      if (banded.length > 1) {
        var top = banded.map(function (p) { return x(p.x) + "," + f.y(p.hi); });
        var bottom = banded.slice().reverse().map(function (p) { return x(p.x) + "," + f.y(p.lo); });
        f.svg.appendChild(svgEl("polygon", { points: top.concat(bottom).join(" "), fill: color, "fill-opacity": 0.15, stroke: "none" }));
      }
      banded.forEach(function (p) { f.svg.appendChild(svgEl("line", { x1: x(p.x), x2: x(p.x), y1: f.y(p.lo), y2: f.y(p.hi), stroke: color, "stroke-opacity": 0.5 })); });
      if (s.points.length > 1) f.svg.appendChild(svgEl("polyline", { points: s.points.map(function (p) { return x(p.x) + "," + f.y(p.y); }).join(" "), fill: "none", stroke: color, "stroke-width": 2 }));
      s.points.forEach(function (p) { f.svg.appendChild(svgEl("circle", { cx: x(p.x), cy: f.y(p.y), r: 4, fill: color }, p.tip)); });
    });
    xLabels(f.svg, x, [x0, (x0 + x1) / 2, x1], spec.xFormat);
    return f.fig;
  }
  // spec: { title, desc, yLabel, yFormat, categories: [label], groups: [name], values: [[per group]], tip(c, g, v), columns, rows }: grouped bars.
  function barChart(spec) {
    var hi = 0; spec.values.forEach(function (vs) { vs.forEach(function (v) { hi = Math.max(hi, v); }); });
    var f = frame({ title: spec.title, desc: spec.desc, yLabel: spec.yLabel, yFormat: spec.yFormat, legend: spec.groups, columns: spec.columns, rows: spec.rows }, 0, hi > 0 ? hi * 1.08 : 1);
    var n = Math.max(1, spec.categories.length), width = (CHART.w - CHART.left - CHART.right) / n;
    var bar = Math.max(1, (width * 0.8) / Math.max(1, spec.groups.length));
    spec.categories.forEach(function (c, i) {
      spec.groups.forEach(function (g, j) {
        var v = spec.values[i][j] || 0, x = CHART.left + i * width + width * 0.1 + j * bar;
        f.svg.appendChild(svgEl("rect", { x: x, y: f.y(v), width: bar, height: Math.max(0, f.y(0) - f.y(v)), fill: PALETTE[j % PALETTE.length] }, spec.tip(c, g, v)));
      });
    });
    var every = Math.ceil(n / 6);
    spec.categories.forEach(function (c, i) {
      if (i % every !== 0 && i !== n - 1) return;
      var l = svgEl("text", { x: CHART.left + i * width + width / 2, y: CHART.h - CHART.bottom + 16, "text-anchor": "middle", "font-size": 11, fill: "#555" }); l.textContent = c; f.svg.appendChild(l);
    });
    return f.fig;
  }
`;
