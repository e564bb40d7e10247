/**
 * One experiment's dashboard (GET /experiments/:id): its arms with users,
 * searches, CTR and purchases, SRM, the statistics the verdict reads, the
 * plots over time (the effect's always-valid confidence sequence, the
 * interleaving preference, daily searches per arm: SVG rendered by
 * Vega-Lite in the Worker, placed by pages/charts.ts), the change history
 * with the guardrail's reasons, and, with the admin token, ramp, promote,
 * roll back and resume buttons, each behind a confirmation. Reads GET
 * /v1/experiments/:id and /v1/experiments/:id/charts (at the page's width).
 */
import { TOKEN_FORM, TOKEN_SCRIPT, TOKEN_STYLE } from "./admin-token.js";
import { CHART_SCRIPT, CHART_STYLE } from "./charts.js";
import { EXPERIMENT_ACTIONS_SCRIPT } from "./experiment-actions.js";
import { LIST_HELPERS, LIST_STYLE } from "./experiments.js";
import { htmlDocument } from "./shell.js";

export const EXPERIMENT_PAGE = htmlDocument({
  title: "cogr-edge · experiment",
  style: `${LIST_STYLE}${TOKEN_STYLE}${CHART_STYLE}
  .scroll { overflow-x: auto; }
  #verdict { font-size: 17px; font-weight: 600; margin: .5rem 0; }
  #actions fieldset { border: 1px solid #ddd; border-radius: 6px; margin: .5rem 0; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
  #actions input { font: inherit; padding: .35rem .5rem; border: 1px solid #bbb; border-radius: 6px; width: 6rem; }
  #actions input.reason { width: auto; flex: 1; min-width: 10rem; }
  button.danger { border-color: #b00020; color: #b00020; }`,
  body: `<p class="cls"><a href="/experiments">\u2190 All experiments</a></p>
<h1 id="title">Experiment</h1>
<p id="meta" class="cls"></p>
${TOKEN_FORM}
<p id="notice"></p>
<p id="status" role="status"></p>
<p id="error" role="alert"></p>
<p id="verdict"></p>
<section id="figures" hidden>
  <h2>Arms</h2>
  <div class="scroll"><table class="list" id="arms"></table></div>
  <p id="srm"></p>
  <div class="scroll"><table class="list" id="stats"></table></div>
  <h2>Over time</h2>
  <div id="charts"></div>
  <h2>History</h2>
  <div class="scroll"><table class="list" id="history"></table></div>
</section>
<section id="actions" hidden>
  <h2>Admin actions</h2>
  <div id="action-forms"></div>
</section>`,
  script: `${TOKEN_SCRIPT}${LIST_HELPERS}${CHART_SCRIPT}
  var id = decodeURIComponent(location.pathname.replace(/^\\/experiments\\//, ""));
  function pct(x) { return (100 * x).toFixed(2) + " %"; }
  function pt(x) { return (x >= 0 ? "+" : "\\u2212") + Math.abs(100 * x).toFixed(2) + " pt"; }
  function num(x) { return Math.round(x).toLocaleString("en"); }
  function pval(p) { return p < 0.0001 ? p.toExponential(1) : p.toFixed(4); }
  // A figure (it starts with a digit, a sign or a bracket) is kept on one line.
  function row(table, cells, tag) { var tr = document.createElement("tr"); cells.forEach(function (c) { tr.appendChild(text(tag || "td", c, /^[-+\u2212\\d[]/.test(c) ? "num" : "")); }); table.appendChild(tr); }

  function showArms(d) {
    var t = el("arms"); t.textContent = "";
    var buys = {}; (d.purchases || []).forEach(function (p) { buys[p.arm] = p.purchases; });
    row(t, ["Arm", "Users", "Searches", "CTR", "Clicked searches", "Purchases", "Zero results", "p95 latency"], "th");
    d.report.arms.forEach(function (a) {
      row(t, [a.arm + (a.round === d.experiment.control ? " (control)" : ""), num(a.users), num(a.searches), pct(a.ctr), num(a.clickedSearches), num(buys[a.arm] || 0), pct(a.zeroResultRate), a.p95LatencyMs.toFixed(0) + " ms"]);
    });
    var srm = d.report.srm;
    el("srm").textContent = srm.mismatch
      ? "Sample-ratio mismatch: the arms' users are off their weights (\\u03c7\\u00b2 = " + srm.chiSquare.toFixed(2) + ", p = " + pval(srm.pValue) + " < 0.001). Check assignment before trusting the figures."
      : "SRM: no sample-ratio mismatch (\\u03c7\\u00b2 = " + srm.chiSquare.toFixed(2) + ", p = " + pval(srm.pValue) + ").";
    var s = el("stats"); s.textContent = "";
    if (d.report.interleaving) {
      var il = d.report.interleaving;
      row(s, ["Interleaving", "Wins", "Losses", "Ties", "Credited wins / losses", "Users decided", "Mean preference", "Always-valid p"], "th");
      row(s, ["treatment vs control", num(il.wins), num(il.losses), num(il.ties), num(il.credited.wins) + " / " + num(il.credited.losses), num(il.users.decided), il.users.meanPreference.toFixed(3), pval(il.alwaysValidP)]);
    } else {
      row(s, ["Treatment", "CTR difference (per search)", "Per-user CTR difference (CUPED)", "Confidence sequence", "Always-valid p", "Verdict"], "th");
      d.report.comparisons.forEach(function (c) {
        var cs = c.cuped.sequential.confidenceSequence;
        row(s, [c.arm, pt(c.ctr.z.difference), pt(c.cuped.sequential.difference), "[" + pt(cs[0]) + ", " + pt(cs[1]) + "]", pval(c.cuped.alwaysValidP), c.verdict]);
      });
    }
  }

  function showHistory(changes) {
    var t = el("history"); t.textContent = "";
    row(t, ["When", "Who", "Action", "Weights after", "Reason"], "th");
    changes.forEach(function (c) {
      row(t, [when(c.at), c.actor, c.action, c.arms.map(function (a) { return "r" + a.round + " " + a.weight / 100 + " %"; }).join(" \\u00b7 "), c.reason]);
    });
  }

  function load() {
    el("error").textContent = "";
    getAuthed("/v1/experiments/" + encodeURIComponent(id)).then(function (res) {
      var d = res.body;
      if (!res.ok) { el("title").textContent = "Experiment " + id; showProblem(d); return; }
      var e = d.experiment;
      el("title").textContent = "Experiment " + e.id;
      document.title = e.id + " \\u00b7 experiments \\u00b7 cogr-edge";
      el("meta").textContent = (e.design === "ab" ? "A/B" : "interleaving") + " \\u00b7 " + e.state.replace("_", " ") + " \\u00b7 " + armsText(e) + " \\u00b7 started " + when(e.createdAt) + " \\u00b7 last change " + when(e.updatedAt);
      el("figures").hidden = !e.disclosed;
      el("notice").textContent = e.disclosed ? "" : "This experiment is live: its arms, figures and history are shown only with the admin token, so that no client can tell which round it is served.";
      el("verdict").textContent = e.disclosed ? "Verdict: " + d.report.verdict + (d.report.winner !== null ? " (winner r" + d.report.winner + ")" : "") : "";
      showActions(e, d.report);
      if (!e.disclosed) return;
      showArms(d);
      showHistory(d.changes);
      getAuthed("/v1/experiments/" + encodeURIComponent(id) + "/charts?width=" + chartWidth()).then(function (s) {
        if (!s.ok) { showProblem(s.body); return; }
        if (s.body.disclosed) showCharts(s.body);
      });
    }).catch(function () { el("error").textContent = "The experiment could not be loaded; try again."; });
  }
  ${EXPERIMENT_ACTIONS_SCRIPT}
  wireToken(load);
  load();
`,
});
