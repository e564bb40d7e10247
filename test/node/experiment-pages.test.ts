/**
 * The experiment dashboards on `npm start`, in headless Chromium: the list
 * and an ended experiment's page for anyone (charts with titles and value
 * tables, the history's reasons as text: a reason carrying markup stays
 * text), a live experiment's figures withheld without the token, and with
 * the token typed into the page (kept in sessionStorage, never in the URL)
 * its figures and an admin rollback behind a confirmation. Screenshots at
 * desktop and mobile widths go to COGR_SCREENSHOTS when set.
 */
import { type ChildProcess, spawn } from "node:child_process";
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

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    expect(runScript("build-round.ts", ["--round", "0", "--dev-queries", "8"], env).status).toBe(0);
    expect(runScript("publish.ts", ["--round", "0", "--state", state], env).status).toBe(0);
    cpSync(join(artifacts, "rounds", "0"), join(artifacts, "rounds", "1"), { recursive: true });
    const file = join(artifacts, "rounds", "1", "manifest.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), round: 1 }));
    const port = await freePort();
    child = spawn(join("node_modules", ".bin", "tsx"), ["scripts/start.ts", "--port", String(port), "--state", state], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    await waitFor(child, /is serving round 1 on http:\/\/127\.0\.0\.1:\d+/, 150_000);
    url = `http://127.0.0.1:${port}`;
    const arms = [
      { round: 0, weight: 5000 },
      { round: 1, weight: 5000 },
    ];
    await runExperiment({ id: "dash-ended", design: "ab", arms }, 3);
    expect((await adminCall("POST", "/admin/experiments/dash-ended/rollback", { reason: INJECTED })).status).toBe(200);
    await runExperiment({ id: "dash-live", design: "ab", arms }, 4);
  }, 300_000);

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
    expect(page).toMatch(/<svg[^>]*role="img"[^>]*><title[^>]*>Effect on per-user CTR/);
    expect(page).toMatch(/<title[^>]*>Daily searches per arm<\/title>/);
    expect(page).toMatch(/<summary>Values<\/summary>/);
    // The reason arrives as text: escaped in the DOM, no element made from it, and its script never ran.
    expect(page).toContain("&lt;img src=x onerror=\"document.title='pwned'\"&gt;&lt;b&gt;bold&lt;/b&gt; rolled back");
    expect(page).not.toMatch(/<img|<b>bold/);
    expect(page).not.toMatch(/<title>pwned/);
    expect(page).not.toMatch(/id="actions"(?![^>]*hidden)/);
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
