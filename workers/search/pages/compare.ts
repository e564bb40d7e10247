/**
 * The compare page (GET /compare?q=&a=&b=): one query through two sides
 * (published rounds, or a round and the evaluation's BM25), from
 * GET /v1/compare. A summary per side (its query keywords, retrieved set,
 * with labels P/R/F1, NDCG@10/@100 and the unjudged top 10), the overlap of
 * the two rankings, then one row per item aligned across the sides with its
 * rank on each and the change (↑3, ↓5, new, gone). A result's description
 * and features open in place; with a judge token the rows get Exact, Partial
 * and Irrelevant buttons (POST /v1/judgments). Without one the page is read-only.
 */

import { JUDGE_HELPERS } from "./judge.js";
import { htmlDocument } from "./shell.js";

export const COMPARE_PAGE = htmlDocument({
  title: "cogr-edge · compare rounds",
  style: `
  body { max-width: 76rem; }
  #sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5rem; }
  @media (max-width: 720px) { #sides { grid-template-columns: 1fr; } .why { display: none; } }
  .side h2 { font-size: 17px; margin: .8rem 0 .2rem; }
  .stats { color: #555; font-size: 13px; margin: .2rem 0; font-variant-numeric: tabular-nums; }
  table.rows { border-collapse: collapse; width: 100%; margin-top: .8rem; }
  .rows th, .rows td { text-align: left; vertical-align: top; padding: .4rem .35rem; border-bottom: 1px solid #e3e3e3; }
  .rows th { font-size: 13px; color: #444; font-weight: 600; }
  .rows td.num { width: 3.2rem; font-variant-numeric: tabular-nums; color: #555; white-space: nowrap; }
  .up { color: #0a7a3c; } .down { color: #b00020; } .new { color: #2a2a8a; } .gone { color: #8a5a00; }
  .badge { display: inline-block; font-size: 12px; border-radius: 4px; padding: 0 .35rem; margin-left: .3rem; background: #eee; color: #333; }
  .badge.Exact { background: #d4f4dd; color: #0a5a2a; }
  .badge.Partial { background: #fff1c2; color: #5c4300; }
  .badge.Irrelevant { background: #fbd9dc; color: #8a1020; }
  .details { font-size: 13px; color: #333; margin: .3rem 0; }
  .details dt { font-weight: 600; } .details dd { margin: 0 0 .2rem .8rem; }
  button.small { font-size: 12px; padding: .1rem .45rem; margin: .2rem .25rem 0 0; }
  button.small.on { background: #1a3d8f; color: #fff; }`,
  body: `<h1>Compare rounds</h1>
<form id="form" action="/compare" method="get">
  <input id="q" name="q" type="search" maxlength="256" placeholder="A query, e.g. desk for kids" autofocus>
  <label>left <select id="a" name="a"></select></label>
  <label>right <select id="b" name="b"></select></label>
  <button type="submit">Compare</button>
</form>
<p class="stats"><label>Judge token <input id="token" type="password" autocomplete="off" size="18"></label>
<span id="judging">read-only: enter JUDGE_TOKEN to rate results</span></p>
<p id="meta"></p>
<p id="notice"></p>
<p id="error" role="alert"></p>
<div id="sides"></div>
<p id="overlap" class="stats"></p>
<table class="rows" id="rows" hidden><thead><tr><th id="ha">left</th><th>change</th><th id="hb">right</th><th>item</th></tr></thead><tbody id="body"></tbody></table>`,
  script: `${JUDGE_HELPERS}
  var params = new URLSearchParams(location.search);
  var q = params.get("q") || "";
  el("q").value = q;
  function option(sel, value, label, chosen) { var o = text("option", label); o.value = value; if (value === chosen) o.selected = true; sel.appendChild(o); }
  function fixed(x) { return x.toFixed(3); }
  function renderSide(s, name) {
    var box = document.createElement("section");
    box.className = "side";
    box.appendChild(text("h2", name + ": " + s.label + (s.kind === "round" ? " · ranker " + s.ranker : "")));
    if (!s.available) { box.appendChild(text("p", "No BM25 run stored for this query: npm run labels (the labelled queries) or npm run query-set stores them.", "stats")); return box; }
    if (s.kind === "round") {
      var kw = document.createElement("div");
      kw.appendChild(text("span", "query keywords (" + s.keywordSource + "): ", "stats"));
      s.keywords.forEach(function (k) { kw.appendChild(text("span", k, "chip")); });
      box.appendChild(kw);
    }
    box.appendChild(text("p", "retrieved set: " + s.total + " items" + (s.kind === "round" ? " (those sharing a keyword with the query, |I_ret(q)|)" : " (its tuned cutoff)"), "stats"));
    if (s.metrics) {
      var m = s.metrics;
      box.appendChild(text("p", "P " + fixed(m.p) + " · R " + fixed(m.r) + " · F1 " + fixed(m.f1) + " (" + m.hits + " of " + m.relevant + " relevant in the retrieved set)", "stats"));
      box.appendChild(text("p", "NDCG@10 " + fixed(m.ndcg10) + " · NDCG@100 " + fixed(m.ndcg100), "stats"));
    }
    box.appendChild(text("p", "judged depth: " + s.unjudgedTop10 + " of its top 10 unjudged", "stats"));
    return box;
  }
  function changeText(ch) {
    if (ch.kind === "up") return ["\\u2191" + ch.by, "up"];
    if (ch.kind === "down") return ["\\u2193" + ch.by, "down"];
    if (ch.kind === "same") return ["=", ""];
    if (ch.kind === "new") return ["new", "new"];
    return ["gone", "gone"];
  }
  function why(prefix, r) {
    var d = document.createElement("div");
    d.className = "why";
    d.appendChild(text("span", prefix + ": score " + r.score.toFixed(3) + " "));
    if (r.explain) {
      r.explain.keywords.forEach(function (k) { d.appendChild(text("span", k, "chip hit")); });
      d.appendChild(text("span", r.explain.words.map(function (w) { return w.word + " " + w.score.toFixed(2); }).join(" + ")));
    }
    return d;
  }
  function detailsToggle(id, cell) {
    var b = text("button", "description & features", "small");
    b.type = "button";
    var box = null;
    b.addEventListener("click", function () {
      if (box) { box.hidden = !box.hidden; return; }
      box = document.createElement("dl");
      box.className = "details";
      cell.appendChild(box);
      getJson("/v1/items/" + encodeURIComponent(id) + "/rounds").then(function (res) {
        if (!res.ok) { box.appendChild(text("dd", res.body.detail || "not found")); return; }
        var det = res.body.details;
        if (!det) { box.appendChild(text("dd", "No description loaded (npm run labels loads them).")); return; }
        box.appendChild(text("dt", "description"));
        box.appendChild(text("dd", det.description || "(none)"));
        det.features.forEach(function (f) { box.appendChild(text("dt", f[0])); box.appendChild(text("dd", f[1])); });
      });
    });
    return b;
  }
  function render(c) {
    var sa = c.sides[0], sb = c.sides[1];
    el("sides").appendChild(renderSide(sa, "left"));
    el("sides").appendChild(renderSide(sb, "right"));
    var o = c.overlap;
    el("overlap").textContent = "Overlap of the two rankings: top 10 Jaccard " + fixed(o.jaccard10) + ", rank-biased overlap " + fixed(o.rbo10) +
      " · top 100 Jaccard " + fixed(o.jaccard100) + ", rank-biased overlap " + fixed(o.rbo100);
    el("ha").textContent = "left";
    el("hb").textContent = "right";
    var byId = {};
    [sa, sb].forEach(function (s, j) { s.results.forEach(function (r) { (byId[r.id] = byId[r.id] || [null, null])[j] = r; }); });
    c.aligned.forEach(function (row) {
      var pair = byId[row.id], r = pair[0] || pair[1];
      var tr = document.createElement("tr");
      tr.appendChild(text("td", row.ranks[0] === null ? "\\u2013" : "#" + row.ranks[0], "num"));
      var ch = changeText(row.change);
      var chCell = text("td", ch[0], "num " + ch[1]);
      chCell.title = "rank on the right \\u2192 rank on the left";
      tr.appendChild(chCell);
      tr.appendChild(text("td", row.ranks[1] === null ? "\\u2013" : "#" + row.ranks[1], "num"));
      var cell = document.createElement("td");
      var words = [];
      pair.forEach(function (x) { if (x && x.explain) x.explain.words.forEach(function (w) { words.push(w.word); }); });
      var link = highlighted("a", r.name, words, "name");
      link.href = "/items/" + encodeURIComponent(r.id);
      cell.appendChild(link);
      var badge = null;
      if (r.label !== undefined || judging()) { badge = text("span", r.label || "unlabelled", "badge " + (r.label || "")); cell.appendChild(badge); }
      cell.appendChild(document.createElement("br"));
      cell.appendChild(text("span", r.class, "cls"));
      if (pair[0]) cell.appendChild(why("left", pair[0]));
      if (pair[1]) cell.appendChild(why("right", pair[1]));
      cell.appendChild(detailsToggle(r.id, cell));
      if (judging()) cell.appendChild(judgeButtons(c.query, r.id, r.label || null, badge));
      tr.appendChild(cell);
      el("body").appendChild(tr);
    });
    el("rows").hidden = c.aligned.length === 0;
    if (c.aligned.length === 0) el("notice").textContent = "Nothing matches on either side.";
  }
  getJson("/v1/rounds").then(function (res) {
    var rounds = res.ok ? res.body.rounds.map(function (r) { return String(r.round); }) : [];
    var a = params.get("a") || rounds[0] || "bm25";
    var b = params.get("b") || rounds[1] || "bm25";
    rounds.forEach(function (r) { option(el("a"), r, "round " + r, a); option(el("b"), r, "round " + r, b); });
    option(el("a"), "bm25", "BM25 (evaluation's)", a);
    option(el("b"), "bm25", "BM25 (evaluation's)", b);
    if (!res.ok) { showProblem(res.body); return; }
    if (!q.trim()) { if (params.has("q")) el("notice").textContent = "Type a query to compare, e.g. desk for kids."; return; }
    el("meta").textContent = "Comparing\\u2026";
    return getJson("/v1/compare?" + new URLSearchParams({ q: q, a: a, b: b })).then(function (res) {
      el("meta").textContent = "";
      if (!res.ok) { showProblem(res.body); return; }
      var c = res.body;
      el("meta").textContent = "\\u201c" + c.query + "\\u201d \\u00b7 " + (c.labelled ? "labelled: labels, P/R/F1 and NDCG shown" : "no relevance labels for this query (npm run labels loads WANDS's; judges add their own)");
      render(c);
    });
  }).catch(function (e) { el("error").textContent = "Compare failed: " + e.message; });`,
});
