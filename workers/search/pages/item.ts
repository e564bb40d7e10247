/**
 * The item page (GET /items/:id): name, class, category, and its keywords in
 * each published round (GET /v1/items/:id/rounds), a keyword new since the
 * round before marked; its description and features (as `npm run labels` loaded them).
 */
import { htmlDocument } from "./shell.js";

export const ITEM_PAGE = htmlDocument({
  title: "cogr-edge · item",
  style: `
  table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
  th, td { text-align: left; vertical-align: top; padding: .4rem .5rem; border-bottom: 1px solid #e3e3e3; }
  th { font-weight: 600; color: #444; width: 6rem; }
  .chip.new { background: #d4f4dd; color: #0a5a2a; }
  #details dt { font-weight: 600; margin-top: .4rem; } #details dd { margin: 0 0 0 1rem; }`,
  body: `<h1 id="name">Item</h1>
<p id="meta" class="cls"></p>
<p id="error" role="alert"></p>
<table><tbody id="rounds"></tbody></table>
<h2>Description and features</h2>
<dl id="details"></dl>`,
  script: `
  var id = decodeURIComponent(location.pathname.replace(/^\\/items\\//, ""));
  getJson("/v1/items/" + encodeURIComponent(id) + "/rounds").then(function (res) {
    var b = res.body;
    if (!res.ok) { el("name").textContent = "Item " + id; showProblem(b); return; }
    el("name").textContent = b.name;
    document.title = b.name + " · cogr-edge";
    el("meta").textContent = "id " + b.id + " · " + b.class + " · " + b.category;
    if (!b.details) el("details").appendChild(text("dd", "Not loaded (npm run labels loads the catalogue's descriptions and features)."));
    else {
      el("details").appendChild(text("dt", "description"));
      el("details").appendChild(text("dd", b.details.description || "(none)"));
      b.details.features.forEach(function (f) { el("details").appendChild(text("dt", f[0])); el("details").appendChild(text("dd", f[1])); });
    }
    // Newest first: a keyword is new when the next (older) round lacks it.
    b.rounds.forEach(function (r, j) {
      var older = b.rounds[j + 1];
      var tr = document.createElement("tr");
      tr.appendChild(text("th", "round " + r.round));
      var td = document.createElement("td");
      if (r.keywords.length === 0) td.appendChild(text("span", "no keywords (the name only)", "cls"));
      r.keywords.forEach(function (k) {
        var isNew = older && older.keywords.indexOf(k) < 0;
        var chip = text("span", k, isNew ? "chip new" : "chip");
        if (isNew) chip.title = "new since round " + older.round;
        td.appendChild(chip);
      });
      tr.appendChild(td);
      el("rounds").appendChild(tr);
    });
  }).catch(function (e) { el("error").textContent = "Loading the item failed: " + e.message; });`,
});
