/**
 * The admin token on the experiment pages: typed into a password field,
 * kept in this tab's sessionStorage (gone when the tab closes; never in the
 * URL, a cookie or a log), sent as `Authorization: Bearer` to the same
 * origin only. Without it the pages are read-only and a live experiment's
 * figures are withheld (experiments/disclosure.ts).
 */

export const TOKEN_FORM = `<form id="token-form" class="token" autocomplete="off">
  <label for="token">Admin token</label>
  <input type="password" id="token" name="token" autocomplete="off" spellcheck="false" placeholder="ADMIN_TOKEN (optional)">
  <button type="submit">Use</button>
  <button type="button" id="forget">Forget</button>
  <span id="token-state" class="cls"></span>
</form>`;

export const TOKEN_STYLE = `
  form.token { align-items: center; margin: .5rem 0 1rem; font-size: 14px; }
  form.token input { font: inherit; padding: .35rem .5rem; border: 1px solid #bbb; border-radius: 6px; min-width: 10rem; flex: 1; }
  form.token button { padding: .35rem .7rem; }
`;

/** adminToken(), headers(), and the form's wiring: onToken() runs after the token changes. */
export const TOKEN_SCRIPT = `
  var TOKEN_KEY = "cogr-admin-token";
  function adminToken() { try { return sessionStorage.getItem(TOKEN_KEY) || ""; } catch (e) { return memoryToken; } }
  var memoryToken = "";
  function setToken(v) { memoryToken = v; try { if (v) sessionStorage.setItem(TOKEN_KEY, v); else sessionStorage.removeItem(TOKEN_KEY); } catch (e) {} }
  function headers() { var t = adminToken(); return t ? { authorization: "Bearer " + t } : {}; }
  function getAuthed(url) {
    return fetch(url, { headers: headers() }).then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); });
  }
  function showTokenState() { el("token-state").textContent = adminToken() ? "token set for this tab" : "read-only (no token)"; }
  function wireToken(onToken) {
    showTokenState();
    el("token-form").addEventListener("submit", function (ev) { ev.preventDefault(); setToken(el("token").value.trim()); el("token").value = ""; showTokenState(); onToken(); });
    el("forget").addEventListener("click", function () { setToken(""); showTokenState(); onToken(); });
  }
`;
