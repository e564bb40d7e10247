/**
 * One experiment's dashboard (GET /experiments/:id): its arms with users,
 * searches, CTR and purchases, SRM, the statistics the verdict reads, the
 * plots over time (the effect's always-valid confidence sequence, the
 * interleaving preference, daily searches per arm; pages/charts.ts), the
 * change history with the guardrail's reasons, and, with the admin token,
 * ramp, promote, roll back and resume buttons, each behind a confirmation.
 * Reads GET /v1/experiments/:id and /v1/experiments/:id/series.
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
  function clock(ms) { return new Date(ms).toISOString().slice(5, 16).replace("T", " "); }
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

  function showCharts(series) {
    var box = el("charts"); box.textContent = "";
    var looks = series.looks.filter(function (l) { return l.users > 0; });
    var arms = []; looks.forEach(function (l) { if (arms.indexOf(l.arm) < 0) arms.push(l.arm); });
    var il = series.design === "interleave";
    if (looks.length === 0) box.appendChild(text("p", "No decided traffic yet: the plots appear with the first searches (and, for interleaving, the first credited clicks).", "cls"));
    else {
      var scale = il ? 1 : 100;
      // The effect cannot leave [-1, 1] (a CTR difference, in pt: [-100, 100]): an early, wide band is drawn cut there.
      var cut = function (v) { return Math.max(-scale, Math.min(scale, v)); };
      var ats = looks.map(function (l) { return l.at; });
      var xfmt = Math.max.apply(null, ats) - Math.min.apply(null, ats) < 3600e3 ? function (ms) { return new Date(ms).toISOString().slice(11, 19); } : clock;
      box.appendChild(lineChart({
        title: il ? "Mean user preference for the treatment, with its always-valid confidence sequence" : "Effect on per-user CTR (CUPED, treatment \\u2212 control), with its always-valid confidence sequence",
        desc: "The estimate at each look and the (1 \\u2212 \\u03b1) confidence sequence around it; it narrows as users arrive, and the verdict is reached when it leaves 0.",
        yLabel: il ? "preference (\\u22121 to 1)" : "CTR difference (pt)",
        yFormat: function (v) { return il ? v.toFixed(2) : v.toFixed(1); },
        xFormat: xfmt, reference: 0,
        series: arms.map(function (a) { return { name: il ? "interleaved" : a + " \\u2212 control", points: looks.filter(function (l) { return l.arm === a; }).map(function (l) {
          return { x: l.at, y: scale * l.effect, lo: cut(scale * l.confidenceSequence[0]), hi: cut(scale * l.confidenceSequence[1]), tip: clock(l.at) + ": " + (scale * l.effect).toFixed(3) + " in [" + (scale * l.confidenceSequence[0]).toFixed(3) + ", " + (scale * l.confidenceSequence[1]).toFixed(3) + "], " + num(l.users) + " users" };
        }) }; }),
        columns: ["Look (UTC)", "Arm", "Effect", "Low", "High", "Users"],
        rows: looks.map(function (l) { return [clock(l.at), l.arm, (scale * l.effect).toFixed(3), (scale * l.confidenceSequence[0]).toFixed(3), (scale * l.confidenceSequence[1]).toFixed(3), num(l.users)]; }),
      }));
      if (il) box.appendChild(lineChart({
        title: "Interleaving: the treatment's share of decided searches (credited clicks)",
        desc: "Above 0.5 the treatment's own results are clicked more often than control's.",
        yLabel: "treatment win share", yFormat: function (v) { return v.toFixed(2); }, xFormat: xfmt, reference: 0.5,
        series: [{ name: "treatment win share", points: looks.map(function (l) { return { x: l.at, y: l.secondary, tip: clock(l.at) + ": " + l.secondary.toFixed(3) }; }) }],
        columns: ["Look (UTC)", "Win share"], rows: looks.map(function (l) { return [clock(l.at), l.secondary.toFixed(3)]; }),
      }));
      else box.appendChild(text("p", "Interleaving preference: this is an A/B experiment (each user sees one arm), so there is none to plot.", "cls"));
    }
    var days = [], groups = [];
    series.daily.forEach(function (r) { if (days.indexOf(r.day) < 0) days.push(r.day); if (groups.indexOf(r.arm) < 0) groups.push(r.arm); });
    if (days.length > 0) box.appendChild(barChart({
      title: "Daily searches per arm", desc: "Searches recorded per UTC day in each arm.", yLabel: "searches", yFormat: function (v) { return num(v); },
      categories: days, groups: groups,
      values: days.map(function (d) { return groups.map(function (g) { var r = series.daily.filter(function (x) { return x.day === d && x.arm === g; })[0]; return r ? r.searches : 0; }); }),
      tip: function (d, g, v) { return d + ", " + g + ": " + num(v) + " searches"; },
      columns: ["Day", "Arm", "Searches", "Clicked", "Purchases"],
      rows: series.daily.map(function (r) { return [r.day, r.arm, num(r.searches), num(r.clickedSearches), num(r.purchases)]; }),
    }));
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
      getAuthed("/v1/experiments/" + encodeURIComponent(id) + "/series").then(function (s) {
        if (!s.ok) { showProblem(s.body); return; }
        if (s.body.series) showCharts(s.body.series);
      });
    }).catch(function () { el("error").textContent = "The experiment could not be loaded; try again."; });
  }
  ${EXPERIMENT_ACTIONS_SCRIPT}
  wireToken(load);
  load();
`,
});
