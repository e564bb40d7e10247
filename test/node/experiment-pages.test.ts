/**
 * The experiment dashboards on `npm start`, in headless Chromium: the list
 * and an ended experiment's page for anyone (the Worker's Vega-Lite charts
 * with titles, hover values and value tables, drawn at the page's width; the
 * history's reasons as text: a reason carrying markup stays text, and so
 * does an arm carrying markup, written into the local events database with
 * `wrangler d1 execute`), a live experiment's figures withheld without the token, and with
 * the token typed into the page (kept in sessionStorage, never in the URL)
 * its figures and an admin rollback behind a confirmation. Screenshots at
 * desktop and mobile widths go to COGR_SCREENSHOTS when set.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../../tools/processes.js";
import { runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";
import { dumpDom, findChromium, screenshot } from "../support/chromium.js";
import { Browser } from "../support/chromium-cdp.js";

const chromium = findChromium();
if (!chromium) console.warn("experiment pages skipped: no chromium found (Debian: apt-get install chromium)");
const INJECTED = `<img src=x onerror="document.title='pwned'"><b>bold</b> rolled back`;
/** An arm name carrying markup, as if the events database held one: it reaches the daily chart's legend, marks and table. */
const EVIL_ARM = `r9"><img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`;
const SIZES = [
  [1280, 900, "desktop"],
  [390, 844, "mobile"],
] as const;

describe.skipIf(!chromium)("the experiment dashboards in headless Chromium", () => {
  const synth = writeSyntheticWands(150);
  const artifacts = mkdtempSync(join(tmpdir(), "cogr-dash-art-"));
  const state = mkdtempSync(join(tmpdir(), "cogr-dash-state-"));
  const shots = process.env.COGR_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "cogr-dash-shots-"));
  const token = "dash-test-token-0123456789abcdef-42";
  const env = { COGR_DATA: synth.dir, COGR_ARTIFACTS: artifacts, ADMIN_TOKEN: token };
  let child: ChildProcess;
  let url = "";
  const adminCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the test reads admin bodies loosely; the contract test checks their schemas
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  /** Starts an experiment, waits until searches see it (ROUND_CACHE_TTL_MS), and sends simulated traffic. */
  const runExperiment = async (body: Record<string, unknown>, seed: number) => {
    expect((await adminCall("POST", "/admin/experiments", body)).status).toBe(201);
    const seen = async () =>
      (await fetch(`${url}/v1/search?q=lamp`, { headers: { authorization: `Bearer ${token}`, "x-user-id": "probe" } })).headers.get("x-cogr-experiment");
    for (let j = 0; j < 60 && (await seen()) !== body.id; j++) await new Promise((r) => setTimeout(r, 250));
    const sim = runScript("simulate-traffic.ts", ["--users", "40", "--searches-per-user", "2", "--seed", String(seed), "--url", url], env);
    expect(sim.stderr).toBe("");
  };

  /** `npm start` on a free port, until it says what it serves. */
  const start = async (serving: RegExp) => {
    const port = await freePort();
    child = spawn(join("node_modules", ".bin", "tsx"), ["scripts/start.ts", "--port", String(port), "--state", state], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    await waitFor(child, serving, 150_000);
    url = `http://127.0.0.1:${port}`;
  };
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGINT");
    await exited;
  };

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    expect(runScript("build-round.ts", ["--round", "0", "--dev-queries", "8"], env).status).toBe(0);
    expect(runScript("publish.ts", ["--round", "0", "--state", state], env).status).toBe(0);
    cpSync(join(artifacts, "rounds", "0"), join(artifacts, "rounds", "1"), { recursive: true });
    const file = join(artifacts, "rounds", "1", "manifest.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), round: 1 }));
    await start(/is serving round 1 on http:\/\/127\.0\.0\.1:\d+/);
    const arms = [
      { round: 0, weight: 5000 },
      { round: 1, weight: 5000 },
    ];
    await runExperiment({ id: "dash-ended", design: "ab", arms }, 3);
    expect((await adminCall("POST", "/admin/experiments/dash-ended/rollback", { reason: INJECTED })).status).toBe(200);
    // The arm carrying markup goes into the events database with the server stopped (a second local D1 client
    // beside `wrangler dev` closes its connections), and `npm start` starts again on the same state.
    await stop();
    const sql = join(artifacts, "evil-arm.sql");
    writeFileSync(
      sql,
      `INSERT INTO searches (request_id, at, round, experiment_id, arm, user_key, query, latency_ms, total, zero_result, error, keyword_source, fallback, shown)
       VALUES ('evil-arm-1', ${Date.now()}, 9, 'dash-ended', '${EVIL_ARM.replaceAll("'", "''")}', 'evil-user', 'lamp', 1, 0, 1, 0, 'policy', 0, '[]');`,
    );
    const wrote = spawnSync(join("node_modules", ".bin", "wrangler"), ["d1", "execute", "cogr-events", "--local", "--persist-to", state, "--file", sql], {
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
      timeout: 120_000,
    });
    expect(wrote.status, wrote.stderr).toBe(0);
    await start(/is serving round 0 on http:\/\/127\.0\.0\.1:\d+/);
    await runExperiment({ id: "dash-live", design: "ab", arms }, 4);
  }, 420_000);

  afterAll(() => {
    if (child && child.exitCode === null) child.kill("SIGINT");
  });

  it("lists every experiment, and shows an ended one to anyone: arms, charts with titles and values, the reason as text", () => {
    const list = dumpDom(chromium as string, `${url}/experiments`);
    expect(list).toMatch(/<a href="\/experiments\/dash-live">dash-live<\/a>/);
    expect(list).toMatch(/<a href="\/experiments\/dash-ended">dash-ended<\/a>/);
    expect(list).toMatch(/withheld while live/);
    expect(list).toMatch(/r0 50 % · r1 50 %/);
    const page = dumpDom(chromium as string, `${url}/experiments/dash-ended`);
    expect(page).toMatch(/<h1 id="title">Experiment dash-ended<\/h1>/);
    expect(page).toMatch(/Verdict: /);
    expect(page).toMatch(/<td>r0 \(control\)<\/td><td class="num">\d+<\/td>/);
    expect(page).toMatch(/SRM: no sample-ratio mismatch|Sample-ratio mismatch/);
    expect(page).toMatch(
      /<figure class="chart" data-chart="effect"><figcaption>Effect on per-user CTR[^<]*<\/figcaption><svg[^>]* role="img" aria-label="Effect on per-user CTR[^"]*"[^>]*><title>Effect on per-user CTR/,
    );
    expect(page).toMatch(/<svg[^>]* role="img" aria-label="Daily searches per arm"[^>]*><title>Daily searches per arm<\/title>/);
    expect(page).toMatch(/<summary>Values<\/summary>/);
    expect(page).toMatch(/A\/B experiment \(each user sees one arm\), so there is none to plot/);
    // The arm carrying markup: text in the chart (escaped in the DOM) and in its table, never an element.
    expect(page).toContain("<td>r9\"&gt;&lt;img src=x onerror=\"document.title='pwned'\"&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;</td>");
    expect(page).toMatch(/aria-label="[^"]*, r9&quot;&gt;&lt;img src=x onerror=&quot;document\.title='pwned'&quot;&gt;&lt;script&gt;[^"]*: 1 searches"/);
    expect(page).not.toMatch(/<script>document/);
    // The reason arrives as text: escaped in the DOM, no element made from it, and its script never ran.
    expect(page).toContain("&lt;img src=x onerror=\"document.title='pwned'\"&gt;&lt;b&gt;bold&lt;/b&gt; rolled back");
    expect(page).not.toMatch(/<img|<b>bold/);
    expect(page).not.toMatch(/<title>pwned/);
    expect(page).not.toMatch(/id="actions"(?![^>]*hidden)/);
  });

  it("draws the ended experiment's charts at the page's width, desktop and mobile, each mark with its value, no markup from the data", async () => {
    const browser = Browser.launch(chromium as string);
    try {
      for (const [width, height, label] of SIZES) {
        const page = await browser.open(`${url}/experiments/dash-ended`, { width, height });
        await page.waitFor("document.querySelectorAll('#charts figure svg').length === 2");
        const figures = await page.evaluate<
          Array<{
            name: string;
            caption: string;
            label: string;
            role: string;
            svgWidth: number;
            boxWidth: number;
            points: number;
            bars: number;
            hover: number;
            rows: number;
          }>
        >(
          `[...document.querySelectorAll("#charts figure")].map((f) => { const svg = f.querySelector("svg"); return {
            name: f.dataset.chart, caption: f.querySelector("figcaption").textContent, label: svg.getAttribute("aria-label"), role: svg.getAttribute("role"),
            svgWidth: Number(svg.getAttribute("width")), boxWidth: document.getElementById("charts").clientWidth,
            points: svg.querySelectorAll('[aria-roledescription="point"]').length, bars: svg.querySelectorAll('[aria-roledescription="bar"]').length,
            hover: svg.querySelectorAll('[aria-roledescription] > title').length, rows: f.querySelectorAll("tr").length - 1 }; })`,
        );
        expect(figures.map((f) => f.name)).toEqual(["effect", "daily"]);
        for (const f of figures) {
          expect(f).toMatchObject({ role: "img", label: f.caption });
          // Rendered by the Worker at the page's width: drawn 1:1, so its 12 px text stays 12 px on a phone.
          expect(f.svgWidth).toBe(Math.max(280, f.boxWidth));
          expect(f.svgWidth).toBeLessThanOrEqual(width);
          expect(f.rows).toBeGreaterThan(0);
        }
        const [effect, daily] = figures as [(typeof figures)[0], (typeof figures)[0]];
        expect(effect.points).toBe(effect.rows);
        expect(effect.hover).toBe(effect.points);
        expect(daily.bars).toBe(daily.rows);
        expect(daily.hover).toBe(daily.bars);
        expect(await page.evaluate<number>("document.querySelectorAll('img, #charts script, #charts foreignObject').length")).toBe(0);
        expect(await page.evaluate<string>("document.title")).toBe("dash-ended \u00b7 experiments \u00b7 cogr-edge");
        expect(await page.evaluate<boolean>(`[...document.querySelectorAll("#charts td")].some((td) => td.textContent === ${JSON.stringify(EVIL_ARM)})`)).toBe(
          true,
        );
        expect(await page.evaluate<boolean>(`[...document.querySelectorAll("#charts svg text")].some((t) => t.textContent.startsWith('r9"><img'))`)).toBe(true);
        await page.evaluate(`(document.querySelectorAll("#charts details").forEach((d) => { d.open = true; }), true)`);
        await page.screenshot(join(shots, `experiment-ended-charts-${label}.png`));
      }
    } finally {
      await browser.close();
    }
  });

  it("withholds a live experiment's figures without the token", () => {
    const page = dumpDom(chromium as string, `${url}/experiments/dash-live`);
    expect(page).toMatch(/shown only with the admin token/);
    expect(page).toMatch(/<section id="figures" hidden="">/);
    expect(page).toMatch(/withheld while live/);
  });

  it("takes screenshots of the list and an ended experiment at desktop and mobile widths", () => {
    for (const [name, path] of [
      ["experiments", "/experiments"],
      ["experiment-ended", "/experiments/dash-ended"],
    ] as const) {
      for (const [width, height, label] of SIZES) {
        const file = join(shots, `${name}-${label}.png`);
        screenshot(chromium as string, `${url}${path}`, file, { width, height });
        const png = readFileSync(file);
        expect(png.subarray(1, 4).toString()).toBe("PNG");
        expect(png.readUInt32BE(16)).toBe(width);
        expect(png.length).toBeGreaterThan(15_000);
      }
    }
  });

  it("with the token typed in the page (never in the URL), shows the live figures, and rolls back after a confirmation", async () => {
    const browser = Browser.launch(chromium as string);
    try {
      for (const [width, height, label] of SIZES) {
        const page = await browser.open(`${url}/experiments/dash-live`, { width, height });
        await page.waitFor("document.getElementById('notice').textContent.includes('admin token')");
        await page.evaluate(`(document.getElementById("token").value = ${JSON.stringify(token)}, document.getElementById("token-form").requestSubmit(), true)`);
        await page.waitFor("document.querySelectorAll('#arms tr').length === 3 && document.querySelector('#charts figure')");
        expect(await page.evaluate<string>("location.href")).toBe(`${url}/experiments/dash-live`);
        expect(await page.evaluate<string>("sessionStorage.getItem('cogr-admin-token')")).toBe(token);
        expect(await page.evaluate<boolean>("document.getElementById('actions').hidden")).toBe(false);
        expect(await page.evaluate<string[]>("[...document.querySelectorAll('#actions button')].map((b) => b.textContent)")).toEqual([
          "Ramp",
          "Promote",
          "Roll back",
        ]);
        const file = join(shots, `experiment-live-admin-${label}.png`);
        await page.screenshot(file);
        expect(readFileSync(file).readUInt32BE(16)).toBe(width);
        if (label !== "mobile") continue;
        await page.evaluate(
          `(document.querySelector("#actions input.reason").value = "seen enough", [...document.querySelectorAll("#actions button")].find((b) => b.textContent === "Roll back").click(), true)`,
        );
        await page.waitFor("document.getElementById('status').textContent === 'Rolled back.'");
        expect(page.dialogs).toHaveLength(1);
        expect(page.dialogs[0]).toMatch(/^Roll back dash-live\? Control \(r0\) serves 100 % at once/);
        await page.waitFor("document.getElementById('actions').hidden");
      }
    } finally {
      await browser.close();
    }
    const after = await adminCall("GET", "/admin/experiments/dash-live");
    expect(after.body.experiment.state).toBe("rolled_back");
    expect(after.body.changes.at(-1)).toMatchObject({ actor: "admin", action: "rollback", reason: "seen enough" });
  });
});
