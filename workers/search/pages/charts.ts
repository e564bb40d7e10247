/**
 * The dashboards' charts in the page: each a <figure> with its caption, the
 * SVG the Worker rendered with Vega-Lite/Vega (GET /v1/experiments/:id/charts,
 * experiments/chart-render.ts), and its values in a table beneath
 * (<details> "Values"). The page runs no charting script: Vega compiles
 * its expressions with `new Function`, which the pages' CSP (this
 * response's nonce only, middleware/security.ts) forbids, and its CSP-safe
 * interpreter is about 800 KB of script; the Worker runs it instead, at
 * the width the page asks for, so text stays legible on a phone.
 *
 * The SVG is parsed as XML (DOMParser, "image/svg+xml"), never as HTML, and
 * imported with document.importNode; Vega escaped every string in it, and
 * anything that is not drawing (script, foreignObject, links, event
 * handler or style attributes) is dropped before it joins the page all the
 * same. Accessible: the <svg role="img"> has an aria-label, a <title> and a
 * <desc>, each mark its value as aria-label and hover <title>; the table's
 * cells go in through textContent.
 */

export const CHART_STYLE = `
  figure.chart { margin: 1rem 0 1.5rem; }
  figure.chart svg { display: block; max-width: 100%; height: auto; border: 1px solid #e3e3e8; border-radius: 6px; }
  figure.chart figcaption { font-weight: 600; margin-bottom: .3rem; }
  figure.chart details { font-size: 13px; margin-top: .3rem; }
  figure.chart .values { overflow-x: auto; }
  figure.chart table { border-collapse: collapse; }
  figure.chart td, figure.chart th { padding: .15rem .5rem; border-bottom: 1px solid #eee; text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
`;

/** showCharts(body) draws GET /v1/experiments/:id/charts's answer into #charts; chartWidth() is the width to ask for. */
export const CHART_SCRIPT = `
  var SVGNS = "http://www.w3.org/2000/svg";
  var NOT_DRAWING = "script, foreignObject, iframe, a, use, image, animate, set";
  function chartWidth() { var w = Math.floor(el("charts").clientWidth); return w > 0 ? Math.max(280, Math.min(1200, w)) : 640; }
  function importSvg(markup) {
    var doc = new DOMParser().parseFromString(markup, "image/svg+xml");
    var root = doc.documentElement;
    if (root.namespaceURI !== SVGNS || root.localName !== "svg" || doc.getElementsByTagName("parsererror").length > 0) return null;
    Array.prototype.slice.call(root.querySelectorAll(NOT_DRAWING)).forEach(function (n) { n.remove(); });
    [root].concat(Array.prototype.slice.call(root.querySelectorAll("*"))).forEach(function (n) {
      Array.prototype.slice.call(n.attributes).forEach(function (a) { if (/^on|href$|^style$/i.test(a.name)) n.removeAttribute(a.name); });
    });
    return document.importNode(root, true);
  }
  function valuesTable(columns, rows) {
    var det = document.createElement("details"); det.appendChild(text("summary", "Values"));
    var wrap = document.createElement("div"); wrap.className = "values";
    var table = document.createElement("table"); var head = document.createElement("tr");
    columns.forEach(function (c) { head.appendChild(text("th", c)); }); table.appendChild(head);
    rows.forEach(function (r) { var tr = document.createElement("tr"); r.forEach(function (v) { tr.appendChild(text("td", v)); }); table.appendChild(tr); });
    wrap.appendChild(table); det.appendChild(wrap);
    return det;
  }
  function showCharts(body) {
    var box = el("charts"); box.textContent = "";
    (body.notes || []).forEach(function (n) { box.appendChild(text("p", n, "cls")); });
    (body.charts || []).forEach(function (c) {
      var fig = document.createElement("figure"); fig.className = "chart"; fig.setAttribute("data-chart", c.name);
      fig.appendChild(text("figcaption", c.title));
      var svg = importSvg(c.svg);
      fig.appendChild(svg || text("p", "This chart could not be drawn; its values are below.", "cls"));
      fig.appendChild(valuesTable(c.columns, c.rows));
      box.appendChild(fig);
    });
  }
`;
