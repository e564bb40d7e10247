/**
 * The search page (GET /): one query against the serving round, results
 * explained (explain=1): the name's matching words marked, the keywords that
 * hit shown under it. Pages of 20; the related tail past I_ret(q) under
 * its own heading. A corrected query says so ("Showing results for …"), with
 * a link that searches the spelling as typed (verbatim=1).
 */
import { SERVING_LIMITS } from "../limits.js";
import { FACET_SIDEBAR_BODY, FACET_SIDEBAR_SCRIPT, FACET_SIDEBAR_STYLE } from "./facet-sidebar.js";
import { htmlDocument } from "./shell.js";

export const SEARCH_PAGE = htmlDocument({
  title: "cogr-edge search",
  style: `
  ol { padding-left: 1.6rem; }
  li { margin: .45rem 0; }
  li.related-head { list-style: none; margin: 1rem 0 .3rem -1.6rem; color: #555; border-top: 1px solid #ddd; padding-top: .5rem; }
  nav.pager { display: flex; gap: .5rem; margin-top: 1rem; }${FACET_SIDEBAR_STYLE}`,
  body: `<h1>cogr-edge</h1>
<form id="form" action="/" method="get" role="search">
  <input id="q" name="q" type="search" maxlength="256" placeholder="Search products, e.g. armchair" autofocus>
  <button type="submit">Search</button>
</form>
<p id="meta"></p>
<p id="corrected"></p>
<p id="notice"></p>
<div id="chips" aria-label="query keywords"></div>
<p id="error" role="alert"></p>
${FACET_SIDEBAR_BODY}
<ol id="results"></ol>
<nav class="pager"><button id="prev" hidden>Previous</button><button id="next" hidden>Next</button><a id="compare" hidden>Compare rounds for this query</a></nav>`,
  script: `
  var PAGE_SIZE = 20;
  var params = new URLSearchParams(location.search);
  var q = params.get("q") || "";
  // The API pages at most ${SERVING_LIMITS.pageDepthMax} results deep (offset + limit): a deeper link shows the last page it allows.
  var MAX_OFFSET = ${SERVING_LIMITS.pageDepthMax} - PAGE_SIZE;
  var offset = Math.min(MAX_OFFSET, Math.max(0, parseInt(params.get("offset") || "0", 10) || 0));
  var verbatim = params.get("verbatim") === "1";
  el("q").value = q;
  function go(newOffset) { var p = new URLSearchParams({ q: q, offset: String(newOffset) }); if (verbatim) p.set("verbatim", "1"); for (var f in filterParams) p.set(f, filterParams[f]); location.search = p.toString(); }${FACET_SIDEBAR_SCRIPT}
  el("prev").onclick = function () { go(Math.max(0, offset - PAGE_SIZE)); };
  el("next").onclick = function () { go(offset + PAGE_SIZE); };
  if (!q.trim()) {
    if (params.has("q")) el("notice").textContent = "Type a few words to search, e.g. armchair.";
    return;
  }
  el("meta").textContent = "Searching…";
  getJson("/v1/search?" + new URLSearchParams(Object.assign({ q: q, limit: String(PAGE_SIZE), offset: String(offset), explain: "1", verbatim: verbatim ? "1" : "0", facets: "class,category" }, filterParams)))
    .then(function (res) {
      var b = res.body;
      if (!res.ok) { el("meta").textContent = ""; showProblem(b); return; }
      el("meta").textContent = b.total + (b.total === 1 ? " result" : " results") + (b.related ? " (+ " + b.related + " related)" : "") + " for \\u201c" + b.query + "\\u201d" + (b.rounds ? " · round " + b.rounds.join(" + ") : "") + (b.arm ? " (" + b.experiment + ", " + b.arm + ")" : "") + " · keywords from " + b.keywordSource + " · " + b.tookMs + " ms";
      if (b.corrected) {
        // Spelling correction (core/typos.ts): what was searched, and a way back to what was typed.
        var c = el("corrected");
        c.appendChild(document.createTextNode("Showing results for "));
        c.appendChild(text("b", b.corrected, "fixed"));
        c.appendChild(document.createTextNode(". "));
        var typed = text("a", "Search instead for \u201c" + b.query + "\u201d", "verbatim");
        typed.href = "/?" + new URLSearchParams({ q: q, verbatim: "1" });
        c.appendChild(typed);
      }
      b.keywords.forEach(function (k) { el("chips").appendChild(text("span", k, "chip")); });
      renderFacets(b.facets);
      var headed = false;
      b.results.forEach(function (r, j) {
        if (r.related && !headed) {
          headed = true;
          // The related tail: past I_ret(q), items sharing a word of the keywords but no keyword.
          el("results").appendChild(text("li", "Related: " + b.related + (b.related === 1 ? " item shares" : " items share") + " a word, no keyword", "related-head"));
        }
        var li = document.createElement("li");
        var words = r.explain ? r.explain.words.map(function (w) { return w.word; }) : [];
        var link = highlighted("a", r.name, words, "name");
        link.href = "/items/" + encodeURIComponent(r.id);
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
        if (r.explain && r.explain.keywords.length) {
          li.appendChild(document.createElement("br"));
          li.appendChild(text("span", "matched: ", "why"));
          r.explain.keywords.forEach(function (k) { li.appendChild(text("span", k, "chip hit")); });
        }
        li.dataset.id = r.id;
        li.value = offset + j + 1; // the "Related" heading is a list item too: numbers stay the ranks
        if (r.related) li.className = "related";
        el("results").appendChild(li);
      });
      // related is null when the page ends inside I_ret(q): more may follow.
      var all = b.related === null ? Infinity : b.total + b.related;
      if (all === 0) el("notice").textContent = "Nothing matches \\u201c" + b.query + "\\u201d. Try fewer or other words.";
      else if (b.total === 0 && offset === 0) el("notice").textContent = "No item has these keywords; below, items that share a word.";
      else if (b.results.length === 0) el("notice").textContent = "This page starts past the last of the " + all + (all === 1 ? " result" : " results") + ": go back to the previous page.";
      el("prev").hidden = offset === 0;
      el("next").hidden = offset + b.results.length >= all || offset >= MAX_OFFSET;
      el("compare").href = "/compare?" + new URLSearchParams({ q: q });
      el("compare").hidden = false;
    })
    .catch(function (e) { el("error").textContent = "Search failed: " + e.message; });`,
});
