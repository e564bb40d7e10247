/**
 * What the workbench's pages share: the document shell (its inline style
 * and script carry the response's CSP nonce, middleware/security.ts), the
 * base style, and the script helpers. Every value a page shows goes in
 * through textContent, never as HTML, so query text, item names and
 * keywords cannot inject markup.
 */

export const BASE_STYLE = `
  body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 46rem; padding: 0 1rem; color: #1d1d1f; }
  header nav { display: flex; gap: 1rem; font-size: 14px; margin-bottom: .5rem; }
  form { display: flex; gap: .5rem; flex-wrap: wrap; }
  input[type=search] { flex: 1; min-width: 12rem; font: inherit; padding: .5rem .7rem; border: 1px solid #bbb; border-radius: 6px; }
  select, button { font: inherit; padding: .5rem .8rem; border-radius: 6px; border: 1px solid #888; background: #f4f4f4; cursor: pointer; }
  #meta, #notice { color: #555; margin: 1rem 0 .3rem; }
  #error { color: #b00020; }
  /* Long queries, names and keywords wrap instead of overflowing the page. */
  #meta, #notice, #error, .chip, .name, .cls, h1, h2, td { overflow-wrap: anywhere; }
  .chip { display: inline-block; background: #e8eefc; color: #1a3d8f; border-radius: 999px; padding: .1rem .6rem; margin: .15rem .2rem .15rem 0; font-size: 13px; }
  .chip.hit { background: #fff1c2; color: #5c4300; }
  .cls { color: #666; font-size: 13px; }
  .score { color: #0a7a3c; font-variant-numeric: tabular-nums; font-size: 13px; margin-left: .4rem; }
  .why { color: #555; font-size: 12px; }
  mark { background: #fff1c2; color: inherit; padding: 0 .05em; }
`;

/** Script helpers: el(id), text(tag, value, cls), highlighted(tag, value, words, cls), getJson(url). */
export const HELPERS = `
  var el = function (id) { return document.getElementById(id); };
  function text(tag, value, cls) { var n = document.createElement(tag); n.textContent = value; if (cls) n.className = cls; return n; }
  // Folded as core/normalize.ts folds a word (compatibility forms, accents, case), near enough to mark it.
  function fold(w) { return w.normalize("NFKD").replace(/[\\u0300-\\u036f]/g, "").toLowerCase(); }
  // value as text nodes, with every word in words marked (<mark> elements holding text nodes, no markup parsed).
  function highlighted(tag, value, words, cls) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    var want = {};
    (words || []).forEach(function (w) { want[fold(w)] = true; });
    String(value).split(/([\\p{L}\\p{N}]+)/u).forEach(function (part) {
      if (part === "") return;
      if (want[fold(part)]) n.appendChild(text("mark", part));
      else n.appendChild(document.createTextNode(part));
    });
    return n;
  }
  function getJson(url) {
    return fetch(url).then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); });
  }
  function showProblem(b) { el("error").textContent = (b.title || "Error") + ": " + (b.detail || ""); }
`;

export const NAV = `<header><nav><a href="/">Search</a><a href="/compare">Compare rounds</a><a href="/queries">Query sets</a><a href="/experiments">Experiments</a><a href="/openapi.json">API</a></nav></header>`;

export function htmlDocument(page: { title: string; style: string; body: string; script: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<style nonce="__NONCE__">${BASE_STYLE}${page.style}</style>
</head>
<body>
${NAV}
${page.body}
<script nonce="__NONCE__">
(function () {
${HELPERS}
${page.script}
})();
</script>
</body>
</html>`;
}

/** The document with this response's CSP nonce. */
export const withNonce = (html: string, nonce: string | undefined) => html.replaceAll("__NONCE__", nonce ?? "");
