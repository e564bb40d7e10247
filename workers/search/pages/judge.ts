/**
 * The judge's part of the compare page: the token field (kept for the tab in
 * sessionStorage, never in a cookie; a judge link's #judge= fragment is moved there and off the URL) and each row's Exact, Partial
 * and Irrelevant buttons, which POST /v1/judgments with the token as a bearer.
 * Without a token no button is shown: the page is read-only.
 */
export const JUDGE_HELPERS = `
  var TOKEN_KEY = "cogr-judge-token";
  // A judge link (/compare?q=…#judge=TOKEN): the fragment never reaches a server; it moves into this tab's storage and off the URL.
  var fromLink = /^#judge=(.+)$/.exec(location.hash);
  if (fromLink) { sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(fromLink[1])); history.replaceState(null, "", location.pathname + location.search); }
  var judgeToken = sessionStorage.getItem(TOKEN_KEY) || "";
  el("token").value = judgeToken;
  el("token").addEventListener("change", function () {
    judgeToken = el("token").value.trim();
    if (judgeToken) sessionStorage.setItem(TOKEN_KEY, judgeToken); else sessionStorage.removeItem(TOKEN_KEY);
    location.reload();
  });
  function judging() { return judgeToken !== ""; }
  if (judging()) el("judging").textContent = "judging: each result has Exact, Partial and Irrelevant buttons";
  function judgeButtons(query, itemId, current, badge) {
    var box = document.createElement("div");
    box.className = "judge";
    ["Exact", "Partial", "Irrelevant"].forEach(function (label) {
      var b = text("button", label, "small" + (label === current ? " on" : ""));
      b.type = "button";
      b.setAttribute("aria-pressed", label === current ? "true" : "false");
      b.addEventListener("click", function () {
        fetch("/v1/judgments", {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer " + judgeToken },
          body: JSON.stringify({ query: query, itemId: itemId, label: label }),
        }).then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); }).then(function (res) {
          if (!res.ok) { showProblem(res.body); return; }
          Array.prototype.forEach.call(box.children, function (x) { x.className = "small" + (x.textContent === label ? " on" : ""); x.setAttribute("aria-pressed", x.textContent === label ? "true" : "false"); });
          if (badge) { badge.textContent = label; badge.className = "badge " + label; }
        }).catch(function (e) { el("error").textContent = "Judging failed: " + e.message; });
      });
      box.appendChild(b);
    });
    return box;
  }
`;
