/**
 * GET / — a small search page. Everything it shows is inserted with
 * textContent, never as HTML, so query text and item names cannot inject
 * markup; its inline script and style carry the response's CSP nonce
 * (middleware/security.ts), and nothing else may run.
 */
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../api/app-type.js";
import { EVERY_ROUTE, problems } from "../api/responses.js";
import { PageHtml } from "../api/schemas.js";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cogr-edge search</title>
<style nonce="__NONCE__">
  body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 46rem; padding: 0 1rem; color: #1d1d1f; }
  form { display: flex; gap: .5rem; }
  input[type=search] { flex: 1; font: inherit; padding: .5rem .7rem; border: 1px solid #bbb; border-radius: 6px; }
  button { font: inherit; padding: .5rem 1rem; border-radius: 6px; border: 1px solid #888; background: #f4f4f4; cursor: pointer; }
  #meta, #notice { color: #555; margin: 1rem 0 .3rem; }
  /* Long queries and names wrap instead of overflowing the page. */
  #meta, #notice, #error, .chip, .name, .cls { overflow-wrap: anywhere; }
  .chip { display: inline-block; background: #e8eefc; color: #1a3d8f; border-radius: 999px; padding: .1rem .6rem; margin: .15rem .2rem .15rem 0; font-size: 13px; }
  ol { padding-left: 1.6rem; }
  li { margin: .45rem 0; }
  .cls { color: #666; font-size: 13px; }
  .score { color: #0a7a3c; font-variant-numeric: tabular-nums; font-size: 13px; margin-left: .4rem; }
  li.related-head { list-style: none; margin: 1rem 0 .3rem -1.6rem; color: #555; border-top: 1px solid #ddd; padding-top: .5rem; }
  #error { color: #b00020; }
  nav { display: flex; gap: .5rem; margin-top: 1rem; }
</style>
</head>
<body>
<h1>cogr-edge</h1>
<form id="form" action="/" method="get" role="search">
  <input id="q" name="q" type="search" maxlength="256" placeholder="Search products, e.g. armchair" autofocus>
  <button type="submit">Search</button>
</form>
<p id="meta"></p>
<p id="notice"></p>
<div id="chips" aria-label="query keywords"></div>
<p id="error" role="alert"></p>
<ol id="results"></ol>
<nav><button id="prev" hidden>Previous</button><button id="next" hidden>Next</button></nav>
<script nonce="__NONCE__">
(function () {
  var PAGE_SIZE = 20;
  var params = new URLSearchParams(location.search);
  var q = params.get("q") || "";
  var offset = Math.max(0, parseInt(params.get("offset") || "0", 10) || 0);
  var el = function (id) { return document.getElementById(id); };
  el("q").value = q;
  function text(tag, value, cls) { var n = document.createElement(tag); n.textContent = value; if (cls) n.className = cls; return n; }
  function go(newOffset) { var p = new URLSearchParams({ q: q, offset: String(newOffset) }); location.search = p.toString(); }
  el("prev").onclick = function () { go(Math.max(0, offset - PAGE_SIZE)); };
  el("next").onclick = function () { go(offset + PAGE_SIZE); };
  if (!q.trim()) {
    if (params.has("q")) el("notice").textContent = "Type a few words to search, e.g. armchair.";
    return;
  }
  el("meta").textContent = "Searching…";
  fetch("/v1/search?" + new URLSearchParams({ q: q, limit: String(PAGE_SIZE), offset: String(offset) }))
    .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
    .then(function (res) {
      var b = res.body;
      if (!res.ok) { el("meta").textContent = ""; el("error").textContent = (b.title || "Error") + ": " + (b.detail || ""); return; }
      el("meta").textContent = b.total + (b.total === 1 ? " result" : " results") + (b.related ? " (+ " + b.related + " related)" : "") + " for \u201c" + b.query + "\u201d · round " + b.rounds.join(" + ") + (b.arm ? " (" + b.experiment + ", " + b.arm + ")" : "") + " · keywords from " + b.keywordSource + " · " + b.tookMs + " ms";
      b.keywords.forEach(function (k) { el("chips").appendChild(text("span", k, "chip")); });
      var headed = false;
      b.results.forEach(function (r, j) {
        if (r.related && !headed) {
          headed = true;
          // The related tail: past I_ret(q), items sharing a word of the keywords but no keyword.
          el("results").appendChild(text("li", "Related: " + b.related + (b.related === 1 ? " item shares" : " items share") + " a word, no keyword", "related-head"));
        }
        var li = document.createElement("li");
        var link = text("a", r.name, "name");
        link.href = "/v1/items/" + encodeURIComponent(r.id);
        // Opening a result is a click: sent as feedback (keepalive, so it survives the navigation).
        link.onclick = function () {
          fetch("/v1/feedback", { method: "POST", keepalive: true, headers: { "content-type": "application/json" }, body: JSON.stringify({ requestId: b.requestId, itemId: r.id, type: "click" }) }).catch(function () {});
        };
        li.appendChild(link);
        var score = text("span", "score " + r.score.toFixed(3), "score");
        score.title = "BM25 score under the round's ranker";
        li.appendChild(score);
        li.appendChild(document.createElement("br"));
        li.appendChild(text("span", r.class, "cls"));
        li.dataset.id = r.id;
        li.value = offset + j + 1; // the "Related" heading is a list item too: numbers stay the ranks
        if (r.related) li.className = "related";
        el("results").appendChild(li);
      });
      el("results").start = offset + 1;
      // related is null when the page ends inside I_ret(q): more may follow.
      var all = b.related === null ? Infinity : b.total + b.related;
      if (all === 0) el("notice").textContent = "Nothing matches \u201c" + b.query + "\u201d. Try fewer or other words.";
      else if (b.total === 0 && offset === 0) el("notice").textContent = "No item has these keywords; below, items that share a word.";
      else if (b.results.length === 0) el("notice").textContent = "This page starts past the last of the " + all + (all === 1 ? " result" : " results") + ": go back to the previous page.";
      el("prev").hidden = offset === 0;
      el("next").hidden = offset + b.results.length >= all;
    })
    .catch(function (e) { el("error").textContent = "Search failed: " + e.message; });
})();
</script>
</body>
</html>`;

export const pageRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "searchPage",
  summary: "The search page (HTML)",
  tags: ["pages"],
  responses: { 200: { description: "The search page.", content: { "text/html": { schema: PageHtml } } }, ...problems(...EVERY_ROUTE) },
});

export function mountPage(app: ApiApp) {
  app.openapi(pageRoute, (c) => c.html(PAGE.replaceAll("__NONCE__", c.get("secureHeadersNonce") ?? ""), 200));
}
