/**
 * `npm start` end to end: round 0 from data, local publish, `wrangler dev`,
 * real HTTP, the page in headless Chromium, and Ctrl-C. Also the publish
 * path through the wrangler CLI (what --remote uses), against local state.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDeployConfig } from "../../publish/node/deploy-config.js";
import { localTarget } from "../../publish/node/targets.js";
import { freePort, waitFor } from "../../tools/processes.js";
import { runScript } from "../cli.js";
import { cliWorkspace, writeSyntheticWands } from "../fixtures.js";
import { dumpDom, findChromium, screenshot } from "../support/chromium.js";
import { openPage } from "../support/chromium-page.js";

describe("npm start", () => {
  const synth = writeSyntheticWands(150);
  const artifacts = mkdtempSync(join(tmpdir(), "cogr-start-art-"));
  const state = mkdtempSync(join(tmpdir(), "cogr-start-state-"));
  const JUDGE_TOKEN = "judge-token-for-the-start-test-0123456789";
  const env = { ...process.env, COGR_DATA: synth.dir, COGR_ARTIFACTS: artifacts, JUDGE_TOKEN };
  let child: ChildProcess;
  let url = "";

  beforeAll(async () => {
    // Relevance labels for the compare page, loaded before the server starts (the same state).
    const labels = runScript("labels.ts", ["--state", state], env);
    expect(labels.stderr).toBe("");
    expect(labels.stdout).toMatch(/^\d+ labels for \d+ queries loaded into local state/);
    // A query set whose query carries markup, for the query-set page's escaping.
    const setFile = join(state, "set.txt");
    writeFileSync(setFile, "<b>x</b> wood chair\nwood chair\n");
    expect(runScript("query-set.ts", ["--name", "inj", "--file", setFile, "--state", state], env).stderr).toBe("");
    // The CLI normalises queries (no markup survives it); a query stored with markup tests the page's own escaping.
    const db = await localTarget(readDeployConfig(), state);
    await db.catalog.execute(["INSERT INTO query_sets (name, position, query) VALUES ('inj', 2, '<img src=x onerror=alert(1)>')"]);
    await db.dispose();
    const port = await freePort();
    child = spawn(join("node_modules", ".bin", "tsx"), ["scripts/start.ts", "--port", String(port), "--state", state], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    await waitFor(child, /is serving round 0 on http:\/\/127\.0\.0\.1:\d+/, 150_000);
    url = `http://127.0.0.1:${port}`;
  }, 180_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("serves ranked results over HTTP", async () => {
    const res = await fetch(`${url}/v1/search?q=wood%20chair&limit=5`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { round: number; results: Array<{ name: string }>; keywordSource: string };
    expect(body.round).toBe(0);
    expect(body.keywordSource).toBe("policy");
    expect(body.results).toHaveLength(5);
    expect(body.results[0]?.name).toMatch(/chair/);
    const bad = await fetch(`${url}/v1/search?q=`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toBe("application/problem+json");
  });

  it("answers the API's contract over real HTTP: readiness, 405, strict UTF-8, security headers", async () => {
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: "ready", round: 0, checks: { catalog: "ok", shards: "ok", kv: "ok" } });
    const post = await fetch(`${url}/v1/search?q=chair`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const bad = await fetch(`${url}/v1/search?q=%ED%A0%80`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { parameter: string }).parameter).toBe("q");
    const page = await fetch(`${url}/`);
    expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'nonce-[^']+'/);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("rate-limits one client through the binding under wrangler dev, and not another", async () => {
    // Each answer read whole (so its connection is free again), kept as what the test looks at.
    const hit = async (user: string) => {
      const r = await fetch(`${url}/v1/rounds`, { headers: { "x-cogr-user": user } });
      await r.arrayBuffer();
      return { status: r.status, retryAfter: r.headers.get("retry-after"), type: r.headers.get("content-type") };
    };
    // wrangler.toml allows a user key 300 requests per 10 s window locally (Miniflare counts in fixed windows). The
    // client sends until its first 429, with no clock: any window with over 300 of its requests trips it, and 3,000
    // requests at 25 at a time leave a window that few only at under 30 answers a second all along, a broken server.
    const answers: Array<Awaited<ReturnType<typeof hit>>> = [];
    while (!answers.some((r) => r.status === 429) && answers.length < 3000)
      answers.push(...(await Promise.all(Array.from({ length: 25 }, () => hit("greedy")))));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.filter((r) => r.status !== 200 && r.status !== 429).map((r) => r.status)).toEqual([]);
    expect(answers.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(300);
    expect(limited[0]).toEqual({ status: 429, retryAfter: "10", type: "application/problem+json" });
    expect((await hit("patient")).status).toBe(200);
  });

  const chromium = findChromium();
  if (!chromium) console.warn("browser check skipped: no chromium found (Debian: apt-get install chromium; .ci/run tries this)");
  it.skipIf(!chromium)("renders the search page in headless Chromium, escaping what it shows", () => {
    const q = "<img src=x onerror=alert(1)> wood chair";
    const dom = dumpDom(chromium as string, `${url}/?q=${encodeURIComponent(q)}`);
    expect(dom).toMatch(/<li data-id="\d+" value="1">/); // results rendered, numbered by rank
    expect(dom).toMatch(/class="chip">[a-z]/); // keyword chips
    expect(dom).toMatch(/results(?: \(\+ \d+ related\))? for “&lt;img src=x onerror=alert\(1\)&gt; wood chair” · round 0 · keywords from policy/);
    expect(dom).toMatch(/<a class="name" href="\/items\/\d+">[^<]*<mark>(wood|chair)<\/mark>/i); // explained: matching words marked
    expect(dom).toMatch(/matched: <\/span><span class="chip hit">/);
    expect(dom).not.toMatch(/<img/i);
    expect(dom).toMatch(/class="score" title="BM25 score[^"]*">score \d+\.\d{3}</);
  });

  it.skipIf(!chromium)("says so when nothing matches, when the query is blank and when the page is past the end", () => {
    expect(dumpDom(chromium as string, `${url}/?q=${encodeURIComponent("zzqx qqzz")}`)).toMatch(
      /0 results for “zzqx qqzz”[\s\S]*id="notice">Nothing matches “zzqx qqzz”\. Try fewer or other words\./,
    );
    expect(dumpDom(chromium as string, `${url}/?q=${encodeURIComponent("   ")}`)).toMatch(/id="notice">Type a few words to search, e\.g\. armchair\.</);
    const past = dumpDom(chromium as string, `${url}/?q=chair&offset=100000`);
    expect(past).toMatch(/id="notice">This page starts past the last of the \d+ results?: go back to the previous page\.</);
    expect(past).toMatch(/<button id="prev">Previous<\/button>/);
    const long = dumpDom(chromium as string, `${url}/?q=${encodeURIComponent("wood ".repeat(51))}`);
    expect(long).toMatch(/overflow-wrap: anywhere/);
  });

  it.skipIf(!chromium)("shows the facet sidebar with counts; the filters in the URL narrow the results and check their boxes", () => {
    const dom = dumpDom(chromium as string, `${url}/?q=wood&class=Chairs`);
    expect(dom).toMatch(
      /<aside id="facets" aria-label="Filter results"><fieldset><legend>Class<\/legend><label><input type="checkbox" name="class" value="Chairs" checked=""><span>Chairs<\/span><span class="count">(\d+)<\/span><\/label><\/fieldset><fieldset><legend>Category<\/legend>/,
    );
    const count = /value="Chairs" checked=""><span>Chairs<\/span><span class="count">(\d+)</.exec(dom)?.[1];
    expect(dom).toContain(`id="meta">${count} results for “wood”`);
    const all = dumpDom(chromium as string, `${url}/?q=wood`);
    expect(all).toMatch(/<input type="checkbox" name="class" value="Chairs"><span>Chairs<\/span><span class="count">\d+<\/span>/);
  });

  it.skipIf(!chromium)("renders the compare and item pages, escaping what they show, labels included", () => {
    const q = "<b>x</b> wood chair";
    const dom = dumpDom(chromium as string, `${url}/compare?q=${encodeURIComponent(q)}`);
    expect(dom).not.toMatch(/<b>x<\/b>/);
    expect(dom).toMatch(/“&lt;b&gt;x&lt;\/b&gt; wood chair” · no relevance labels/);
    // One round published: round 0 against the evaluation's BM25, whose run `npm run query-set` stored for this query.
    expect(dom).toMatch(/<h2>left: round 0 · ranker keywords<\/h2>[\s\S]*<h2>right: BM25 over the item text, cutoff \d+ tuned on \d+ training queries<\/h2>/);
    expect(dom).toMatch(/retrieved set: \d+ items \(those sharing a keyword with the query, \|I_ret\(q\)\|\)/);
    expect(dom).toMatch(
      /<tr><td class="num">#1<\/td><td class="num (up|down|new|gone|)" title="[^"]+">(↑\d+|↓\d+|new|gone|=)<\/td><td class="num">(#\d+|–)<\/td>/,
    );
    // A query no set holds: BM25 says it has no run, and every row is new on the left.
    const unrun = dumpDom(chromium as string, `${url}/compare?q=${encodeURIComponent("sofa for kids")}`);
    expect(unrun).toMatch(/<h2>right: BM25 over the item text<\/h2><p class="stats">No BM25 run stored for this query/);
    expect(unrun).toMatch(/<td class="num">#1<\/td><td class="num new" title="[^"]+">new<\/td><td class="num">–<\/td>/);
    expect(dom).not.toMatch(/>Exact<\/button>/); // no judge token: read-only
    // A labelled query (the synthetic catalogue's first): labels, P/R/F1 and NDCG per side, BM25's stored run, rows aligned.
    const labelled = dumpDom(chromium as string, `${url}/compare?q=${encodeURIComponent("wood chair")}`);
    expect(labelled).toMatch(/labelled: labels, P\/R\/F1 and NDCG shown/);
    expect(labelled).toMatch(/<h2>right: BM25 over the item text, cutoff \d+ tuned on \d+ training queries<\/h2>/);
    expect(labelled).toMatch(/P \d\.\d{3} · R \d\.\d{3} · F1 \d\.\d{3} \(\d+ of \d+ relevant in the retrieved set\)/);
    expect(labelled).toMatch(/NDCG@10 \d\.\d{3} · NDCG@100 \d\.\d{3}/);
    expect(labelled).toMatch(/judged depth: \d+ of its top 10 unjudged/);
    expect(labelled).toMatch(/Overlap of the two rankings: top 10 Jaccard \d\.\d{3}, rank-biased overlap \d\.\d{3} · top 100 Jaccard/);
    expect(labelled).toMatch(/<td class="num (up|down|new|gone|)" title="[^"]+">(↑\d+|↓\d+|new|gone|=)<\/td>/);
    expect(labelled).toMatch(/class="badge (Exact|Partial|Irrelevant)?">(Exact|Partial|Irrelevant|unlabelled)</);
    // A judge link: the token leaves the URL for the tab's storage, and every row gets its three buttons.
    const judging = dumpDom(chromium as string, `${url}/compare?q=${encodeURIComponent("<b>x</b> wood chair")}#judge=${JUDGE_TOKEN}`);
    expect(judging).toMatch(/judging: each result has Exact, Partial and Irrelevant buttons/);
    expect(judging).toMatch(
      /<button class="small" type="button" aria-pressed="false">Exact<\/button><button class="small" type="button" aria-pressed="false">Partial<\/button>/,
    );
    expect(judging).not.toMatch(/<b>x<\/b>/);
    // The query-set page: the paired summary, rows that open /compare, markup in a query shown as text.
    const set = dumpDom(chromium as string, `${url}/queries?set=inj`);
    expect(set).toMatch(/Set “inj”: 3 queries, 1 with a relevant item and metrics on both sides/);
    expect(set).toMatch(/<th>NDCG@10<\/th><td class="n">\d\.\d{3}<\/td>/);
    expect(set).toMatch(/<a href="\/compare\?q=%3Cimg\+src%3Dx\+onerror%3Dalert%281%29%3E&amp;a=0&amp;b=bm25">&lt;img src=x onerror=alert\(1\)&gt;<\/a>/);
    expect(set).not.toMatch(/<img/);
    const item = dumpDom(chromium as string, `${url}/items/1`);
    expect(item).toMatch(/<th>round 0<\/th><td>(<span class="chip">[^<]+<\/span>)+<\/td>/);
    expect(item).toMatch(/<p id="meta" class="cls">id 1 · /);
    expect(item).toMatch(/<dt>description<\/dt><dd>a sturdy [^<]+<\/dd><dt>color<\/dt>/);
    expect(dumpDom(chromium as string, `${url}/items/${encodeURIComponent("<i>nope</i>")}`)).toMatch(
      /id="error" role="alert">Not found: No item with id "&lt;i&gt;nope&lt;\/i&gt;"/,
    );
  });

  it.skipIf(!chromium)("takes screenshots of the search, compare (read-only and judging), query-set and item pages at desktop and mobile widths", () => {
    const dir = process.env.COGR_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "cogr-shots-"));
    mkdirSync(dir, { recursive: true });
    const pages = {
      search: "/?q=wood%20chair",
      facets: "/?q=wood&class=Chairs,Lamps&category=Furniture",
      compare: `/compare?q=${encodeURIComponent("wood chair")}`,
      judge: `/compare?q=${encodeURIComponent("wood chair")}#judge=${JUDGE_TOKEN}`,
      queries: "/queries",
      item: "/items/1",
    };
    for (const [name, path] of Object.entries(pages)) {
      for (const [width, height, label] of [
        [1280, 900, "desktop"],
        [390, 844, "mobile"],
      ] as const) {
        const file = join(dir, `${name}-${label}.png`);
        screenshot(chromium as string, `${url}${path}`, file, { width, height });
        // A PNG of that size, not an error page's blank: the header says the width, and content makes it large.
        const png = readFileSync(file);
        expect(png.subarray(1, 4).toString()).toBe("PNG");
        expect(png.readUInt32BE(16)).toBe(width);
        expect(png.length).toBeGreaterThan(15_000);
      }
    }
  });

  it.skipIf(!chromium)("offers suggestions under the search box: a combobox and listbox, arrow keys, Escape and Enter", async () => {
    const page = await openPage(chromium as string, `${url}/`, { width: 1000, height: 700 });
    const q = `document.getElementById("q")`;
    const options = `[...document.querySelectorAll("#suggestions [role=option]")]`;
    try {
      await page.waitFor(`document.activeElement === ${q}`);
      expect(
        await page.evaluate(`[${q}.getAttribute("role"), ${q}.getAttribute("aria-controls"), document.getElementById("suggestions").getAttribute("role")]`),
      ).toEqual(["combobox", "suggestions", "listbox"]);
      // The page's script must have run (its input listener attached) before keys are typed: on a loaded CI machine the
      // focus can come first, and keys typed before the listener show no suggestions.
      await page.waitFor(`document.readyState === "complete"`);
      await page.type("wood ch");
      await page.waitFor(`!document.getElementById("suggestions").hidden`);
      const texts = await page.evaluate<string[]>(`${options}.map((o) => o.dataset.text)`);
      const api = (await (await fetch(`${url}/v1/suggest?q=wood%20ch&limit=8`)).json()) as { suggestions: Array<{ text: string }> };
      expect(texts).toEqual(api.suggestions.map((s) => s.text));
      expect(texts.length).toBeGreaterThan(1);
      const state = `[${q}.getAttribute("aria-expanded"), ${q}.getAttribute("aria-activedescendant"), ${options}.filter((o) => o.getAttribute("aria-selected") === "true").map((o) => o.id)]`;
      await page.press("ArrowDown");
      await page.press("ArrowDown");
      expect(await page.evaluate(state)).toEqual(["true", "suggestion-1", ["suggestion-1"]]);
      await page.press("ArrowUp");
      expect(await page.evaluate(state)).toEqual(["true", "suggestion-0", ["suggestion-0"]]);
      const dir = process.env.COGR_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "cogr-shots-"));
      mkdirSync(dir, { recursive: true });
      await page.screenshot(join(dir, "search-suggestions-desktop.png"));
      await page.press("Escape");
      expect(await page.evaluate(`[document.getElementById("suggestions").hidden, ${q}.getAttribute("aria-expanded"), ${q}.value]`)).toEqual([
        true,
        "false",
        "wood ch",
      ]);
      await page.press("ArrowDown");
      await page.press("Enter");
      await page.waitFor(`new URLSearchParams(location.search).get("q") === ${JSON.stringify(texts[0])}`);
      await page.waitFor(`/results? for/.test(document.getElementById("meta").textContent)`);
    } finally {
      await page.close();
    }
  });

  it("stops everything on Ctrl-C", async () => {
    child.kill("SIGINT");
    const code = await new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.on("exit", r)));
    expect(code).not.toBeNull();
    let down = false;
    for (let j = 0; j < 20 && !down; j++) {
      down = await fetch(`${url}/healthz`).then(
        () => new Promise<boolean>((r) => setTimeout(() => r(false), 250)),
        () => true,
      );
    }
    expect(down).toBe(true);
  });

  it("without data, says how to get it in one line", () => {
    const empty = mkdtempSync(join(tmpdir(), "cogr-empty-"));
    const r = runScript("start.ts", ["--port", "1"], { COGR_DATA: join(empty, "none"), COGR_ARTIFACTS: empty });
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/npm run data.*COGR_DATA/);
  });
});

describe("publish through the wrangler CLI (the --remote path, against local state)", () => {
  it("publishes, refuses to unpublish the serving round, and unpublishes an older one", async () => {
    const { artifacts, state, env } = cliWorkspace(60, "wr");
    expect(runScript("build-round.ts", ["--round", "0", "--dev-queries", "5"], env).status).toBe(0);
    // Round 1: the same content under another number.
    cpSync(join(artifacts, "rounds", "0"), join(artifacts, "rounds", "1"), { recursive: true });
    const m = JSON.parse(readFileSync(join(artifacts, "rounds", "1", "manifest.json"), "utf8"));
    writeFileSync(join(artifacts, "rounds", "1", "manifest.json"), JSON.stringify({ ...m, round: 1 }));

    // Round 0 through the wrangler CLI; round 1 through the bindings (faster), into the same state.
    const viaCli = runScript("publish.ts", ["--round", "0", "--local", "--state", state, "--via-wrangler"], env);
    expect(viaCli.stderr).toBe("");
    expect(viaCli.stdout).toMatch(/round 0 published in full to local state/);
    // --full: round 1 holds all its rows, so round 0 can go without it (built on round 0 it would need it).
    expect(runScript("publish.ts", ["--round", "1", "--state", state, "--full"], env).stdout).toMatch(/round 1 published in full/);
    const refused = runScript("unpublish.ts", ["--round", "1", "--state", state], env);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^error: round 1 is serving traffic/);
    expect(runScript("unpublish.ts", ["--round", "0", "--state", state, "--via-wrangler"], env).status).toBe(0);

    const target = await localTarget(readDeployConfig(), state);
    try {
      expect(await target.catalog.scalar("SELECT group_concat(round) FROM rounds WHERE state = 'published'")).toBe("1");
      const postings = await Promise.all(target.shards.map((s) => s.scalar("SELECT COUNT(*) FROM postings WHERE round = 0")));
      expect(postings.map(Number)).toEqual([0, 0, 0, 0]);
      expect(Number(await target.catalog.scalar("SELECT COUNT(*) FROM items WHERE round = 1"))).toBe(60);
    } finally {
      await target.dispose();
    }
    const bad = runScript("publish.ts", ["--round", "9", "--state", state], env);
    expect(bad.status).toBe(2);
    // The missing round is named with the rounds that are there, and how a round after 0 is made.
    expect(bad.stderr.trim()).toMatch(
      /^error: no round 9 in .*rounds \(rounds there: 0, 1\): rounds after 0 come from `npm run train` \(e\.g\. `-- --rounds 9`\)$/,
    );
    expect(runScript("publish.ts", ["--remote", "--local", "--round", "0"], env).status).toBe(1);
  }, 900_000);
});
