/**
 * The compare page (GET /compare?q=&a=&b=): one query through two sides
 * (published rounds, or a round and BM25) in two columns, from
 * GET /v1/compare. Each result shows its rank, score, class, whether the
 * other side shows it too, the keywords and words it matched, and with
 * labels loaded its label; each side its P/R/F1.
 */
import { htmlDocument } from "./shell.js";

export const COMPARE_PAGE = htmlDocument({
  title: "cogr-edge · compare rounds",
  style: `
  body { max-width: 76rem; }
  #sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5rem; }
  @media (max-width: 720px) { #sides { grid-template-columns: 1fr; } }
  .side h2 { font-size: 17px; margin: .8rem 0 .2rem; }
  .side .stats { color: #555; font-size: 13px; margin: .2rem 0; font-variant-numeric: tabular-nums; }
  .side ol { padding-left: 0; list-style: none; }
  .side li { margin: .5rem 0; padding: .35rem .5rem; border-left: 4px solid #ddd; }
  .side li.shared { border-left-color: #7aa7e8; }
  .rank { display: inline-block; min-width: 2rem; color: #555; font-variant-numeric: tabular-nums; }
  .badge { display: inline-block; font-size: 12px; border-radius: 4px; padding: 0 .35rem; margin-left: .3rem; background: #eee; color: #333; }
  .badge.Exact { background: #d4f4dd; color: #0a5a2a; }
  .badge.Partial { background: #fff1c2; color: #5c4300; }
  .badge.Irrelevant { background: #fbd9dc; color: #8a1020; }
  .badge.only { background: #ececff; color: #2a2a8a; }`,
  body: `<h1>Compare rounds</h1>
<form id="form" action="/compare" method="get">
  <input id="q" name="q" type="search" maxlength="256" placeholder="A query, e.g. desk for kids" autofocus>
  <label>left <select id="a" name="a"></select></label>
  <label>right <select id="b" name="b"></select></label>
  <button type="submit">Compare</button>
</form>
<p id="meta"></p>
<p id="notice"></p>
<p id="error" role="alert"></p>
<div id="sides"></div>`,
  script: `
  var params = new URLSearchParams(location.search);
  var q = params.get("q") || "";
  el("q").value = q;
  function option(sel, value, label, chosen) { var o = text("option", label); o.value = value; if (value === chosen) o.selected = true; sel.appendChild(o); }
  function fixed(x) { return x.toFixed(3); }
  function renderSide(s) {
    var box = document.createElement("section");
    box.className = "side";
    box.appendChild(text("h2", s.label + (s.kind === "round" ? " · ranker " + s.ranker : "")));
    var kw = document.createElement("div");
    s.keywords.forEach(function (k) { kw.appendChild(text("span", k, "chip")); });
    box.appendChild(kw);
    box.appendChild(text("p", (s.kind === "round" ? "|I_ret(q)| = " : "items sharing a word: ") + s.total + " · keywords from " + s.keywordSource, "stats"));
    if (s.metrics) {
      box.appendChild(text("p", "P " + fixed(s.metrics.p) + " · R " + fixed(s.metrics.r) + " · F1 " + fixed(s.metrics.f1) + " (" + s.metrics.hits + " of " + s.metrics.relevant + " relevant in " + s.metrics.retrieved + (s.kind === "round" ? " retrieved)" : " top results)"), "stats"));
    }
    var ol = document.createElement("ol");
    if (s.results.length === 0) ol.appendChild(text("li", "Nothing matches."));
    s.results.forEach(function (r) {
      var li = document.createElement("li");
      if (r.inOther) li.className = "shared";
      li.appendChild(text("span", "#" + r.rank, "rank"));
      var words = r.explain.words.map(function (w) { return w.word; });
      var link = highlighted("a", r.name, words, "name");
      link.href = "/items/" + encodeURIComponent(r.id);
      li.appendChild(link);
      li.appendChild(text("span", "score " + r.score.toFixed(3), "score"));
      if (r.label !== undefined) li.appendChild(text("span", r.label || "unlabelled", "badge " + (r.label || "")));
      li.appendChild(text("span", r.inOther ? "in both" : "only here", r.inOther ? "badge" : "badge only"));
      if (s.kind === "round" && r.related) li.appendChild(text("span", "related", "badge"));
      li.appendChild(document.createElement("br"));
      li.appendChild(text("span", r.class, "cls"));
      var why = document.createElement("div");
      why.className = "why";
      if (r.explain.keywords.length) {
        why.appendChild(text("span", "matched "));
        r.explain.keywords.forEach(function (k) { why.appendChild(text("span", k, "chip hit")); });
      }
      why.appendChild(text("span", r.explain.words.map(function (w) { return w.word + " " + w.score.toFixed(2); }).join(" + ")));
      li.appendChild(why);
      ol.appendChild(li);
    });
    box.appendChild(ol);
    return box;
  }
  getJson("/v1/rounds").then(function (res) {
    var rounds = res.ok ? res.body.rounds.map(function (r) { return String(r.round); }) : [];
    var a = params.get("a") || rounds[0] || "bm25";
    var b = params.get("b") || rounds[1] || "bm25";
    rounds.forEach(function (r) { option(el("a"), r, "round " + r, a); option(el("b"), r, "round " + r, b); });
    option(el("a"), "bm25", "BM25", a);
    option(el("b"), "bm25", "BM25", b);
    if (!res.ok) { showProblem(res.body); return; }
    if (!q.trim()) { if (params.has("q")) el("notice").textContent = "Type a query to compare, e.g. desk for kids."; return; }
    el("meta").textContent = "Comparing…";
    return getJson("/v1/compare?" + new URLSearchParams({ q: q, a: a, b: b })).then(function (res) {
      el("meta").textContent = "";
      if (!res.ok) { showProblem(res.body); return; }
      var c = res.body;
      el("meta").textContent = "\\u201c" + c.query + "\\u201d · " + (c.labelled ? "labelled: P/R/F1 and labels shown" : "no relevance labels for this query (npm run labels loads WANDS's)");
      c.sides.forEach(function (s) { el("sides").appendChild(renderSide(s)); });
    });
  }).catch(function (e) { el("error").textContent = "Compare failed: " + e.message; });`,
});
