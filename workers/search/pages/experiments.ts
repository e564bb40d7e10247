/**
 * The experiments page (GET /experiments): every experiment, newest first
 * (GET /v1/experiments), the live one on top. A live experiment's arms are
 * shown only with the admin token (pages/admin-token.ts).
 */
import { TOKEN_FORM, TOKEN_SCRIPT, TOKEN_STYLE } from "./admin-token.js";
import { htmlDocument } from "./shell.js";

export const LIST_STYLE = `
  table.list { border-collapse: collapse; width: 100%; margin-top: .5rem; font-size: 14px; }
  table.list th, table.list td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
  table.list th { color: #444; font-weight: 600; }
  /* Figures stay whole ("61.90 %", not "61.\n90 %"); a narrow screen scrolls the table sideways (.scroll). Long reasons still wrap at spaces. */
  table.list td { overflow-wrap: break-word; }
  table.list td.num { white-space: nowrap; }
  .state { border-radius: 999px; padding: .05rem .5rem; font-size: 12px; background: #eee; white-space: nowrap; }
  .state.running { background: #d4f4dd; color: #0a5a2a; }
  .state.paused { background: #fff1c2; color: #5c4300; }
  .state.rolled_back { background: #fde2e2; color: #8a1c1c; }
  .state.promoted { background: #e8eefc; color: #1a3d8f; }
  @media (max-width: 560px) { table.list .wide { display: none; } }
`;

/** Shared by both pages: a state badge, an arm list, a time. */
export const LIST_HELPERS = `
  function badge(state) { return text("span", state.replace("_", " "), "state " + state); }
  function armsText(e) {
    if (!e.disclosed) return "withheld while live (admin token)";
    if (e.design === "interleave") return "r" + e.control + " vs r" + e.arms.filter(function (a) { return a.round !== e.control; }).map(function (a) { return a.round; }).join(",") + " interleaved (" + (e.interleaveShareBp / 100) + " % of traffic)";
    return e.arms.map(function (a) { return "r" + a.round + " " + (a.weight / 100) + " %"; }).join(" · ");
  }
  function when(iso) { return String(iso).slice(0, 16).replace("T", " ") + " UTC"; }
`;

export const EXPERIMENTS_PAGE = htmlDocument({
  title: "cogr-edge · experiments",
  style: LIST_STYLE + TOKEN_STYLE,
  body: `<h1>Experiments</h1>
${TOKEN_FORM}
<p id="notice"></p>
<p id="error" role="alert"></p>
<table class="list" id="list" hidden>
  <thead><tr><th>Experiment</th><th>Design</th><th>State</th><th>Arms</th><th class="wide">Started</th><th class="wide">Last change</th></tr></thead>
  <tbody id="rows"></tbody>
</table>`,
  script: `${TOKEN_SCRIPT}${LIST_HELPERS}
  function load() {
    el("error").textContent = "";
    getAuthed("/v1/experiments").then(function (res) {
      if (!res.ok) { showProblem(res.body); return; }
      var rows = el("rows"); rows.textContent = "";
      var list = res.body.experiments;
      el("list").hidden = list.length === 0;
      el("notice").textContent = list.length === 0
        ? "No experiments yet. Start one with POST /admin/experiments (README: \\u201cRolling out a round: experiments\\u201d)."
        : list.length + " experiment" + (list.length === 1 ? "" : "s") + ", newest first.";
      // The live one (running or paused) first, then the others newest first.
      list.slice().sort(function (a, b) { return (b.state === "running" || b.state === "paused") - (a.state === "running" || a.state === "paused"); }).forEach(function (e) {
        var tr = document.createElement("tr");
        var td = document.createElement("td");
        var a = text("a", e.id); a.href = "/experiments/" + encodeURIComponent(e.id); td.appendChild(a); tr.appendChild(td);
        tr.appendChild(text("td", e.design === "ab" ? "A/B" : "interleaving"));
        var st = document.createElement("td"); st.appendChild(badge(e.state));
        if (e.winner !== null) st.appendChild(text("span", " winner r" + e.winner, "cls"));
        tr.appendChild(st);
        tr.appendChild(text("td", armsText(e)));
        tr.appendChild(text("td", when(e.createdAt), "wide"));
        tr.appendChild(text("td", when(e.updatedAt), "wide"));
        rows.appendChild(tr);
      });
    }).catch(function () { el("error").textContent = "The experiments could not be loaded; try again."; });
  }
  wireToken(load);
  load();
`,
});
