/**
 * The dashboard's admin actions: ramp (a running A/B experiment's treatment
 * weights), promote, roll back and resume, through the admin API
 * (routes/admin.ts) with the token the user typed (pages/admin-token.ts).
 * Each asks for a confirmation naming what it will do; the admin API
 * decides whether it applies (409 otherwise), and its problem is shown.
 * Without the token, or for an ended experiment, there are no buttons.
 */

/** showActions(e, report) and the calls behind its buttons; needs el, text, adminToken, headers, showProblem and load. */
export const EXPERIMENT_ACTIONS_SCRIPT = `
  function adminCall(method, path, body, done) {
    var h = headers(); h["content-type"] = "application/json";
    fetch(path, { method: method, headers: h, body: JSON.stringify(body) }).then(function (r) {
      return r.json().then(function (b) {
        if (!r.ok) { showProblem(b); return; }
        el("status").textContent = done;
        load();
      });
    }).catch(function () { el("error").textContent = "The admin API did not answer; try again."; });
  }
  function button(label, cls, onClick) { var b = text("button", label, cls); b.type = "button"; b.addEventListener("click", onClick); return b; }
  function field(label, input) { var l = text("label", label); l.appendChild(document.createTextNode(" ")); l.appendChild(input); return l; }
  function showActions(e, report) {
    var box = el("action-forms"); box.textContent = "";
    var live = e.state === "running" || e.state === "paused";
    el("actions").hidden = !(adminToken() && live && e.disclosed);
    if (el("actions").hidden) return;
    var base = "/admin/experiments/" + encodeURIComponent(e.id);
    var reason = document.createElement("input"); reason.className = "reason"; reason.placeholder = "reason (recorded in the history)"; reason.maxLength = 500;
    var why = function (fallback) { return reason.value.trim() || fallback; };
    var common = document.createElement("fieldset"); common.appendChild(field("Reason", reason)); box.appendChild(common);
    if (e.state === "running" && e.design === "ab") {
      var ramp = document.createElement("fieldset");
      var inputs = e.arms.filter(function (a) { return a.round !== e.control; }).map(function (a) {
        var i = document.createElement("input"); i.type = "number"; i.min = String(a.weight / 100); i.max = "100"; i.step = "0.01"; i.value = String(a.weight / 100);
        i.setAttribute("aria-label", "r" + a.round + " share in percent");
        ramp.appendChild(field("r" + a.round + " %", i));
        return { round: a.round, input: i };
      });
      ramp.appendChild(button("Ramp", "", function () {
        var arms = inputs.map(function (x) { return { round: x.round, weight: Math.round(100 * Number(x.input.value)) }; });
        var rest = 10000 - arms.reduce(function (s, a) { return s + a.weight; }, 0);
        var all = [{ round: e.control, weight: rest }].concat(arms);
        var plan = all.map(function (a) { return "r" + a.round + " " + a.weight / 100 + " %"; }).join(", ");
        if (!confirm("Ramp " + e.id + " to " + plan + "? Treatments can only grow.")) return;
        adminCall("PATCH", base, { arms: all }, "Ramped to " + plan + ".");
      }));
      box.appendChild(ramp);
    }
    var end = document.createElement("fieldset");
    var pick = document.createElement("select"); pick.setAttribute("aria-label", "round to promote");
    var auto = text("option", report && report.winner !== null ? "the report's winner (r" + report.winner + ")" : "the report's winner (none yet)"); auto.value = ""; pick.appendChild(auto);
    e.arms.forEach(function (a) { var o = text("option", "r" + a.round); o.value = String(a.round); pick.appendChild(o); });
    end.appendChild(field("Promote", pick));
    end.appendChild(button("Promote", "", function () {
      var round = pick.value === "" ? undefined : Number(pick.value);
      var name = round === undefined ? "the report's winner" : "r" + round;
      if (!confirm("Promote " + name + "? It serves 100 % of traffic and " + e.id + " ends.")) return;
      adminCall("POST", base + "/promote", round === undefined ? { reason: why("promoted from the dashboard") } : { round: round, reason: why("promoted from the dashboard") }, "Promoted.");
    }));
    end.appendChild(button("Roll back", "danger", function () {
      if (!confirm("Roll back " + e.id + "? Control (r" + e.control + ") serves 100 % at once and the experiment ends.")) return;
      adminCall("POST", base + "/rollback", { reason: why("rolled back from the dashboard") }, "Rolled back.");
    }));
    if (e.state === "paused") end.appendChild(button("Resume", "", function () {
      if (!confirm("Resume " + e.id + "? Its users go back to their arms; the pause's suspect networks stay out of the statistics.")) return;
      adminCall("POST", base + "/resume", { reason: why("resumed from the dashboard") }, "Resumed.");
    }));
    box.appendChild(end);
  }
`;
