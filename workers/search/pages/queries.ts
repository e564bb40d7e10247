/**
 * The query-set page (GET /queries?set=&a=&b=): two sides over a whole query
 * set, from GET /v1/query-set. The paired summary per metric (mean of each
 * side, the mean delta with its 95 % bootstrap interval, wins and losses, the
 * sign test), then one row per query, worst for the left side first, each
 * opening /compare for its query. Judged depth per side (Quepid's "unjudged
 * in the top 10"), and a toggle that keeps only completely judged queries.
 */
import { htmlDocument } from "./shell.js";

export const QUERIES_PAGE = htmlDocument({
  title: "cogr-edge · query sets",
  style: `
  body { max-width: 76rem; }
  .scroll { overflow-x: auto; }
  table { border-collapse: collapse; width: 100%; margin-top: .8rem; font-size: 14px; }
  th, td { text-align: left; padding: .3rem .45rem; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
  td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  th { color: #444; font-weight: 600; font-size: 13px; }
  #rows td:first-child { min-width: 10rem; }
  .worse { color: #b00020; } .better { color: #0a7a3c; }
  .stats { color: #555; font-size: 13px; }`,
  body: `<h1>Query sets</h1>
<form id="form" action="/queries" method="get">
  <label>set <select id="set" name="set"></select></label>
  <label>left <select id="a" name="a"></select></label>
  <label>right <select id="b" name="b"></select></label>
  <button type="submit">Evaluate</button>
</form>
<p class="stats"><label><input id="complete" type="checkbox"> only queries whose top 10 are judged on both sides</label></p>
<p id="meta"></p>
<p id="notice"></p>
<p id="error" role="alert"></p>
<div class="scroll"><table id="summary" hidden><caption class="stats">Paired over the labelled queries (a − b): mean delta with its 95 % bootstrap interval, and a sign test</caption>
<thead><tr><th>metric</th><th class="n" id="sa">left</th><th class="n" id="sb">right</th><th class="n">delta [95 % CI]</th><th class="n">wins / losses / ties</th><th class="n">sign test p</th></tr></thead><tbody id="sum"></tbody></table></div>
<div class="scroll"><table id="rows" hidden><thead><tr><th>query</th><th class="n">Δ NDCG@10</th><th class="n">left NDCG@10</th><th class="n">right NDCG@10</th><th class="n">Δ F1</th><th class="n">left P / R / F1</th><th class="n">right P / R / F1</th><th class="n">left retrieved set</th><th class="n">right retrieved set</th><th class="n">unjudged top 10 (left / right)</th></tr></thead><tbody id="body"></tbody></table></div>`,
  script: `
  var params = new URLSearchParams(location.search);
  function option(sel, value, label, chosen) { var o = text("option", label); o.value = value; if (value === chosen) o.selected = true; sel.appendChild(o); }
  function f3(x) { return x === null || x === undefined ? "\\u2013" : x.toFixed(3); }
  function prf(m) { return m ? m.p.toFixed(2) + " / " + m.r.toFixed(2) + " / " + m.f1.toFixed(3) : "\u2013"; }
  function signed(x) { return x === null || x === undefined ? "\\u2013" : (x > 0 ? "+" : "") + x.toFixed(3); }
  function cell(tr, value, cls) { tr.appendChild(text("td", value, cls ? "n " + cls : "n")); }
  function sideParam(s) { return s.kind === "bm25" ? "bm25" : String(s.round); }
  var last = null;
  function renderRows() {
    var c = last;
    el("body").textContent = "";
    var complete = el("complete").checked;
    var shown = c.queries.filter(function (r) { return !complete || (r.a.unjudgedTop10 === 0 && r.b.unjudgedTop10 === 0); });
    shown.forEach(function (r) {
      var tr = document.createElement("tr");
      var td = document.createElement("td");
      var link = text("a", r.query);
      link.href = "/compare?" + new URLSearchParams({ q: r.query, a: sideParam(c.sides[0]), b: sideParam(c.sides[1]) });
      td.appendChild(link);
      if (!r.labelled) td.appendChild(text("span", " unlabelled", "stats"));
      tr.appendChild(td);
      var d = r.delta;
      cell(tr, signed(d && d.ndcg10), d ? (d.ndcg10 < 0 ? "worse" : d.ndcg10 > 0 ? "better" : "") : "");
      cell(tr, f3(r.a.metrics && r.a.metrics.ndcg10));
      cell(tr, f3(r.b.metrics && r.b.metrics.ndcg10));
      cell(tr, signed(d && d.f1), d ? (d.f1 < 0 ? "worse" : d.f1 > 0 ? "better" : "") : "");
      cell(tr, prf(r.a.metrics));
      cell(tr, prf(r.b.metrics));
      cell(tr, r.a.retrieved === null ? "no run" : String(r.a.retrieved));
      cell(tr, r.b.retrieved === null ? "no run" : String(r.b.retrieved));
      cell(tr, r.a.unjudgedTop10 + " / " + r.b.unjudgedTop10);
      el("body").appendChild(tr);
    });
    el("rows").hidden = shown.length === 0;
    el("notice").textContent = shown.length === 0 ? (complete ? "No query has its top 10 judged on both sides." : "The set is empty.") : "";
  }
  function render(c) {
    last = c;
    el("sa").textContent = "left: " + c.sides[0].label;
    el("sb").textContent = "right: " + c.sides[1].label;
    [["NDCG@10", c.summary.ndcg10], ["NDCG@100", c.summary.ndcg100], ["F1 (retrieved set)", c.summary.f1]].forEach(function (m) {
      var s = m[1], tr = document.createElement("tr");
      tr.appendChild(text("th", m[0]));
      cell(tr, f3(s.meanA));
      cell(tr, f3(s.meanB));
      cell(tr, signed(s.meanDelta) + " [" + signed(s.ci95[0]) + ", " + signed(s.ci95[1]) + "]", s.ci95[1] < 0 ? "worse" : s.ci95[0] > 0 ? "better" : "");
      cell(tr, s.wins + " / " + s.losses + " / " + s.ties);
      cell(tr, s.signTestP.toFixed(4));
      el("sum").appendChild(tr);
    });
    el("summary").hidden = false;
    el("meta").textContent = "Set \\u201c" + c.set + "\\u201d: " + c.size + " queries, " + c.summary.ndcg10.queries + " with a relevant item and metrics on both sides; worst for the left side first. A row opens the query in Compare.";
    renderRows();
  }
  el("complete").addEventListener("change", function () { if (last) renderRows(); });
  Promise.all([getJson("/v1/rounds"), getJson("/v1/query-sets")]).then(function (both) {
    var rs = both[0], ss = both[1];
    if (!rs.ok) { showProblem(rs.body); return; }
    if (!ss.ok) { showProblem(ss.body); return; }
    var rounds = rs.body.rounds.map(function (r) { return String(r.round); });
    var a = params.get("a") || rounds[0] || "bm25";
    var b = params.get("b") || rounds[1] || "bm25";
    var set = params.get("set") || "labelled";
    rounds.forEach(function (r) { option(el("a"), r, "round " + r, a); option(el("b"), r, "round " + r, b); });
    option(el("a"), "bm25", "BM25 (evaluation's)", a);
    option(el("b"), "bm25", "BM25 (evaluation's)", b);
    ss.body.sets.forEach(function (s) { option(el("set"), s.name, s.name + " (" + s.queries + ")", set); });
    el("meta").textContent = "Evaluating\\u2026";
    return getJson("/v1/query-set?" + new URLSearchParams({ set: set, a: a, b: b })).then(function (res) {
      el("meta").textContent = "";
      if (!res.ok) { showProblem(res.body); return; }
      render(res.body);
    });
  }).catch(function (e) { el("error").textContent = "Evaluating failed: " + e.message; });`,
});
