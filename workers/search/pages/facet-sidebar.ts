/**
 * The search page's facet sidebar (issue 25 §2): the class and category
 * facets of the whole filtered I_ret(q) with their counts, as checkboxes in
 * fieldsets; checking one filters (class: OR over the checked values;
 * category: drills into the path, unchecking goes back up). The filters live
 * in the page's URL (`class`, `category`), exactly as the API spells them, so
 * a filtered page is a link. Everything is put in with textContent.
 */

export const FACET_SIDEBAR_STYLE = `
  aside#facets { float: right; width: 15rem; margin: 0 0 1rem 1.2rem; font-size: .92rem; }
  aside#facets fieldset { border: 1px solid #ddd; border-radius: 6px; margin: 0 0 .8rem; padding: .4rem .7rem .6rem; }
  aside#facets legend { font-weight: 600; padding: 0 .3rem; }
  aside#facets label { display: flex; gap: .4rem; align-items: baseline; margin: .2rem 0; cursor: pointer; overflow-wrap: anywhere; }
  aside#facets .count { margin-left: auto; color: #666; font-variant-numeric: tabular-nums; }
  aside#facets .path { color: #555; margin: .1rem 0 .3rem; }
  @media (max-width: 720px) { aside#facets { float: none; width: auto; margin: 0 0 1rem; } }`;

export const FACET_SIDEBAR_BODY = `<aside id="facets" aria-label="Filter results" hidden></aside>`;

/** Defines `filterParams` (the URL's filters, to send and keep) and `renderFacets(facets)`; needs `params` and `go` from the page. */
export const FACET_SIDEBAR_SCRIPT = `
  var FILTER_FIELDS = ["class", "category"];
  var filterParams = {};
  FILTER_FIELDS.forEach(function (f) { var v = params.get(f); if (v) filterParams[f] = v; });
  // A list as the API reads it: commas separate, "\\\\," is a comma inside a value.
  function splitList(raw) { var out = [], cur = ""; for (var j = 0; j < raw.length; j++) { var ch = raw[j]; if (ch === "\\\\" && (raw[j + 1] === "," || raw[j + 1] === "\\\\")) { cur += raw[++j]; } else if (ch === ",") { out.push(cur.trim()); cur = ""; } else cur += ch; } out.push(cur.trim()); return out.filter(function (v) { return v; }); }
  function joinList(vs) { return vs.map(function (v) { return v.replace(/\\\\/g, "\\\\\\\\").replace(/,/g, "\\\\,"); }).join(","); }
  function setFilter(field, value) { if (value) filterParams[field] = value; else delete filterParams[field]; go(0); }
  function option(name, value, count, checked, onchange) {
    var label = document.createElement("label");
    var box = document.createElement("input");
    box.type = "checkbox"; box.name = name; box.value = value; box.checked = checked;
    if (checked) box.setAttribute("checked", ""); // so the state is in the markup too
    box.onchange = onchange;
    label.appendChild(box);
    label.appendChild(text("span", value));
    if (count !== null) label.appendChild(text("span", String(count), "count"));
    return label;
  }
  function fieldset(legend) { var fs = document.createElement("fieldset"); fs.appendChild(text("legend", legend)); return fs; }
  function renderFacets(facets) {
    var aside = el("facets");
    if (!facets) return;
    var chosen = filterParams["class"] ? splitList(filterParams["class"]) : [];
    var classes = facets["class"] || [];
    if (classes.length || chosen.length) {
      var fs = fieldset("Class");
      var shown = {};
      classes.forEach(function (f) {
        shown[f.value.toLowerCase()] = true;
        fs.appendChild(option("class", f.value, f.count, chosen.some(function (c) { return c.toLowerCase() === f.value.toLowerCase(); }), function () {
          var next = this.checked ? chosen.concat([f.value]) : chosen.filter(function (c) { return c.toLowerCase() !== f.value.toLowerCase(); });
          setFilter("class", joinList(next));
        }));
      });
      // A checked class the answer holds no item of stays on the list, so it can be unchecked.
      chosen.forEach(function (c) { if (!shown[c.toLowerCase()]) fs.appendChild(option("class", c, 0, true, function () { setFilter("class", joinList(chosen.filter(function (x) { return x !== c; }))); })); });
      aside.appendChild(fs);
    }
    var path = filterParams["category"] || "";
    var cats = facets["category"] || [];
    if (cats.length || path) {
      var cf = fieldset("Category");
      if (path) {
        // The chosen path, checked: unchecking goes one level up.
        var segs = path.split("/").map(function (s) { return s.trim(); }).filter(function (s) { return s; });
        cf.appendChild(option("category", segs.join(" / "), null, true, function () { setFilter("category", segs.slice(0, -1).join("/")); }));
      }
      cats.forEach(function (f) { cf.appendChild(option("category", f.value, f.count, false, function () { setFilter("category", f.value.split(" / ").join("/")); })); });
      aside.appendChild(cf);
    }
    aside.hidden = !aside.firstChild;
  }`;
