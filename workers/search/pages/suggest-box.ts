/**
 * Suggestions under the search page's box (GET /v1/suggest), as the WAI-ARIA
 * 1.2 combobox pattern: the input is a `combobox` that controls a `listbox`
 * of `option`s; ArrowDown/ArrowUp move the active option (aria-activedescendant,
 * focus stays in the input), Enter searches it, Escape closes the list, a
 * click picks one. A polite live region says how many there are. Plain DOM
 * in the page's one nonce'd script (middleware/security.ts), text through
 * textContent only.
 */
import { SUGGEST_LIMITS } from "../../../core/suggest.js";

/** The box: replaces the page's plain input. */
export const SUGGEST_BOX_HTML = `<div class="combo">
    <input id="q" name="q" type="search" maxlength="256" placeholder="Search products, e.g. armchair" autofocus autocomplete="off"
      role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="suggestions" aria-label="Search products">
    <ul id="suggestions" role="listbox" aria-label="Suggestions" hidden></ul>
  </div>
  <span id="suggest-status" class="visually-hidden" role="status" aria-live="polite"></span>`;

export const SUGGEST_BOX_STYLE = `
  .combo { position: relative; flex: 1; min-width: 12rem; display: flex; }
  .combo input { flex: 1; min-width: 0; }
  #suggestions { position: absolute; top: 100%; left: 0; right: 0; z-index: 10; margin: 2px 0 0; padding: .25rem 0; list-style: none;
    background: #fff; border: 1px solid #bbb; border-radius: 6px; box-shadow: 0 4px 12px rgba(0,0,0,.12); }
  #suggestions li { margin: 0; padding: .35rem .7rem; cursor: pointer; display: flex; justify-content: space-between; gap: 1rem; overflow-wrap: anywhere; }
  #suggestions li[aria-selected=true] { background: #e8eefc; }
  #suggestions .kind { color: #777; font-size: 12px; white-space: nowrap; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }`;

/** Runs first in the page's script (before it returns early on a blank query). */
export const SUGGEST_BOX_SCRIPT = `
  (function () {
    var input = el("q"), box = el("suggestions"), status = el("suggest-status");
    var options = [], active = -1, asked = 0, timer = null;
    function setActive(j) {
      active = j;
      options.forEach(function (o, k) { o.setAttribute("aria-selected", k === j ? "true" : "false"); });
      if (j >= 0) { input.setAttribute("aria-activedescendant", options[j].id); options[j].scrollIntoView({ block: "nearest" }); }
      else input.removeAttribute("aria-activedescendant");
    }
    function close() { box.hidden = true; input.setAttribute("aria-expanded", "false"); setActive(-1); }
    function open() { if (options.length) { box.hidden = false; input.setAttribute("aria-expanded", "true"); } }
    function pick(textValue) { input.value = textValue; close(); el("form").submit(); }
    function render(list) {
      box.textContent = "";
      options = list.map(function (s, j) {
        var li = document.createElement("li");
        li.id = "suggestion-" + j;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.dataset.text = s.text;
        li.appendChild(text("span", s.text, "text"));
        li.appendChild(text("span", s.kind === "query" ? "popular search" : "keyword", "kind"));
        li.onclick = function () { pick(s.text); };
        box.appendChild(li);
        return li;
      });
      active = -1;
      status.textContent = list.length ? list.length + (list.length === 1 ? " suggestion" : " suggestions") + ", arrow keys to choose" : "";
      if (list.length) open(); else close();
    }
    input.addEventListener("input", function () {
      clearTimeout(timer);
      var typed = input.value;
      if (!typed.trim()) { asked++; render([]); return; }
      timer = setTimeout(function () {
        var mine = ++asked; // an older answer arriving late is dropped
        getJson("/v1/suggest?" + new URLSearchParams({ q: typed.slice(0, ${SUGGEST_LIMITS.typedMaxChars}), limit: "8" }))
          .then(function (res) { if (mine === asked && res.ok) render(res.body.suggestions); })
          .catch(function () {});
      }, 120);
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        if (!options.length) return;
        e.preventDefault();
        if (box.hidden) { open(); setActive(e.key === "ArrowDown" ? 0 : options.length - 1); return; }
        var n = options.length;
        setActive(e.key === "ArrowDown" ? (active + 1) % n : (active <= 0 ? n - 1 : active - 1));
      } else if (e.key === "Enter" && !box.hidden && active >= 0) {
        e.preventDefault();
        pick(options[active].dataset.text);
      } else if (e.key === "Escape" && !box.hidden) {
        e.preventDefault();
        close();
      }
    });
    // A click on an option lands before the input's blur closes the list.
    box.addEventListener("mousedown", function (e) { e.preventDefault(); });
    input.addEventListener("blur", close);
  })();`;
