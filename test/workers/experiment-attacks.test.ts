/**
 * The attacks of issue 26 on a running experiment, replayed in workerd on
 * real local D1/KV, through the search API and the guardrail cron handler:
 *  - an ordinary client cannot tell its arm (headers, body, teams), while
 *    feedback still credits the right team;
 *  - farming clicks into one arm from one IP with rotating user keys does not
 *    move the verdict;
 *  - skewing the users per arm from one IP with rotating keys does not trip
 *    SRM, and the cron leaves the experiment running;
 *  - a burst of zero-result queries into the treatment from two IPs pauses
 *    the experiment (with the reason), never rolls it back; a resume that
 *    excludes those networks keeps it running.
 * The attacker here knows which of its keys land in the treatment (the test
 * computes it from the salt): the worst case, as if it had fingerprinted its
 * arm some other way. Its requests also skip the rate limiter, as a patient
 * attacker pacing itself under the limit would: what is tested is the
 * counting, not the throttle.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Arm } from "../../workers/search/experiments/config.js";
import { COUNTING_LIMITS } from "../../workers/search/experiments/counting.js";
import { sampleRatioMismatch } from "../../workers/search/experiments/statistics.js";
import { admin } from "./admin.js";
import { cron, keysIn, ownNetwork, unthrottled } from "./experiment-traffic.js";
import { get, publish, send, testRounds } from "./helpers.js";

const rounds = await testRounds();
const adminView = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
const ATTACKER_IPS = ["198.51.100.66", "198.51.100.67", "203.0.113.9"] as const;

type Body = Record<string, unknown> & { requestId: string; total: number; results: Array<{ id: string; team?: string }> };

async function search(q: string, user: string, ip: string, headers: Record<string, string> = {}) {
  const res = await get(`/v1/search?q=${encodeURIComponent(q)}&limit=10`, unthrottled, { "x-user-id": user, "cf-connecting-ip": ip, ...headers });
  expect(res.status).toBe(200);
  return { res, body: (await res.json()) as Body };
}
const click = (requestId: string, itemId: string) =>
  send(
    "/v1/feedback",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ requestId, itemId, type: "click" }) },
    unthrottled,
  );

/** `count` honest users, each on a /24 of its own, one search each; those whose index ends in a digit below `clickers` click the first result. */
async function honestTraffic(tag: string, count: number, clickers = 0) {
  const clicks: number[] = [];
  for (let u = 0; u < count; u++) {
    const { body } = await search("wood chair", `${tag}-${u}`, ownNetwork(u));
    if (u % 10 < clickers) clicks.push((await click(body.requestId, body.results[0]?.id as string)).status);
  }
  // Every clicker's click counts: as many 202s as clickers.
  const clickersSeen = Array.from({ length: count }, (_, u) => u).filter((u) => u % 10 < clickers).length;
  expect(clicks).toEqual(new Array(clickersSeen).fill(202));
}

const HALF: Arm[] = [
  { round: 0, weight: 5000 },
  { round: 1, weight: 5000 },
];
async function startAb(id: string, salt: string) {
  const started = await admin("POST", "/admin/experiments", { id, design: "ab", arms: HALF, control: 0, salt, guardrails: { minSearches: 40 } });
  expect(started.res.status).toBe(201);
}
const detail = async (id: string) => (await admin("GET", `/admin/experiments/${id}`)).body;

beforeAll(async () => {
  await publish(rounds.synthetic0);
  await publish({ ...rounds.synthetic0, manifest: { ...rounds.synthetic0.manifest, round: 1 } });
});

describe("an ordinary client cannot tell its arm", () => {
  it("A/B: no X-CoGR-* header, no round, rounds, experiment or arm; the same fields in every arm; the admin view has them", async () => {
    await startAb("hidden", "hidden-salt");
    const [inControl] = keysIn("hidden-salt", HALF, 0, 0, 1, "c");
    const [inTreatment] = keysIn("hidden-salt", HALF, 0, 1, 1, "t");
    const seen: string[][] = [];
    for (const user of [inControl, inTreatment] as string[]) {
      const { res, body } = await search("wood chair", user, "192.0.2.10");
      for (const h of ["x-cogr-round", "x-cogr-arm", "x-cogr-experiment"]) expect(res.headers.get(h)).toBeNull();
      expect(body.results.length).toBeGreaterThan(0);
      seen.push(Object.keys(body).sort());
      const shown = await search("wood chair", user, "192.0.2.10", adminView);
      expect(shown.res.headers.get("x-cogr-experiment")).toBe("hidden");
      expect(shown.body).toMatchObject({ experiment: "hidden", arm: user === inControl ? "r0" : "r1", round: user === inControl ? 0 : 1 });
    }
    expect(seen[0]).toEqual(["corrected", "keywordSource", "keywords", "query", "related", "requestId", "results", "tookMs", "total"]);
    expect(seen[1]).toEqual(seen[0]);
    // A wrong token is an ordinary client, not an error.
    const wrong = await search("wood chair", inTreatment as string, "192.0.2.10", { authorization: "Bearer not-the-token" });
    expect(wrong.body).not.toHaveProperty("arm");
    const item = await get(`/v1/items/${wrong.body.results[0]?.id}`, {}, { "x-user-id": inTreatment as string });
    expect(await item.json()).not.toHaveProperty("round");
    expect((await admin("POST", "/admin/experiments/hidden/rollback", {})).res.status).toBe(200);
  });

  it("interleaving: no teams and no per-round totals, yet a click credits the team the search showed", async () => {
    const started = await admin("POST", "/admin/experiments", { id: "il-hidden", design: "interleave", control: 0, treatment: 1, salt: "il-salt" });
    expect(started.res.status).toBe(201);
    const plain = await search("wood chair", "il-a", "192.0.2.11");
    expect(plain.body).not.toHaveProperty("totals");
    expect(plain.body.results.length).toBeGreaterThan(1);
    expect(plain.body.results.filter((r) => "team" in r)).toEqual([]);
    // The same user and query get the same merged list; the admin view shows its teams.
    const shown = await search("wood chair", "il-a", "192.0.2.11", adminView);
    expect(shown.body.results.map((r) => r.id)).toEqual(plain.body.results.map((r) => r.id));
    const treatmentItem = shown.body.results.find((r) => r.team === "treatment")?.id as string;
    expect((await click(plain.body.requestId, treatmentItem)).status).toBe(202);
    expect((await detail("il-hidden")).report.interleaving).toMatchObject({ wins: 1, losses: 0, ties: 0 });
    expect((await admin("POST", "/admin/experiments/il-hidden/rollback", {})).res.status).toBe(200);
  });
});

describe("attacks from one network with rotating user keys", () => {
  it("farming clicks into the treatment does not move the verdict", async () => {
    await startAb("farm", "farm-salt");
    await honestTraffic("farm", 200, 3);
    const before = (await detail("farm")).report;
    expect(before.verdict).toBe("no detectable difference yet");
    const farmed = 400;
    for (const key of keysIn("farm-salt", HALF, 0, 1, farmed, "farmer")) {
      const { body } = await search("wood chair", key, ATTACKER_IPS[0]);
      expect((await click(body.requestId, body.results[0]?.id as string)).status).toBe(202);
    }
    const after = (await detail("farm")).report;
    const r1 = after.arms.find((a: { arm: string }) => a.arm === "r1");
    const r1Before = before.arms.find((a: { arm: string }) => a.arm === "r1");
    // The attack landed: every farmed search and click is recorded…
    expect(r1.searches - r1Before.searches).toBe(farmed);
    expect(r1.clickedSearches - r1Before.clickedSearches).toBe(farmed);
    // …but the verdict stays, since its network counts for at most searchesPerPrefixMax searches.
    expect(after.comparisons[0].verdict).toBe("no detectable difference yet");
    expect(after.verdict).toBe(before.verdict);
    expect(after.winner).toBeNull();
    expect(r1.counted.searches - r1Before.counted.searches).toBeCloseTo(COUNTING_LIMITS.searchesPerPrefixMax, 6);
    await cron();
    expect((await detail("farm")).experiment.state).toBe("running");
    expect((await admin("POST", "/admin/experiments/farm/rollback", {})).res.status).toBe(200);
  });

  it("skewing users per arm until SRM would trip leaves SRM clean and the experiment running", async () => {
    await startAb("skew", "skew-salt");
    await honestTraffic("skew", 200);
    for (const key of keysIn("skew-salt", HALF, 0, 1, 300, "skewer")) await search("wood chair", key, ATTACKER_IPS[0]);
    const { report } = await detail("skew");
    const users = report.arms.map((a: { users: number }) => a.users);
    // Counted per key, as before, the split is broken beyond doubt…
    expect(sampleRatioMismatch(users, [5000, 5000]).mismatch).toBe(true);
    // …counted with each network's keys capped, it is not: the 300 keys count as keysPerPrefixMax users.
    expect(report.srm.mismatch).toBe(false);
    const counted = report.arms.map((a: { counted: { users: number } }) => a.counted.users);
    expect(counted[0]).toBe(users[0]);
    expect(counted[1]).toBeCloseTo(users[1] - 300 + COUNTING_LIMITS.keysPerPrefixMax, 6);
    await cron();
    const after = await detail("skew");
    expect(after.experiment.state).toBe("running");
    expect(after.changes.map((c: { action: string }) => c.action)).toEqual(["start"]);
    expect((await admin("POST", "/admin/experiments/skew/rollback", {})).res.status).toBe(200);
  });
});

describe("zero-result queries into the treatment from few networks", () => {
  it("pause the experiment with the reason, never roll it back; a resume without those networks keeps it running", async () => {
    await startAb("zero", "zero-salt");
    await honestTraffic("zero", 160);
    const burst = keysIn("zero-salt", HALF, 0, 1, 400, "zeroer");
    for (const [j, key] of burst.entries()) {
      const { body } = await search("qqqq zzzz", key, ATTACKER_IPS[1 + (j % 2)] as string);
      expect(body.total).toBe(0);
    }
    await cron();
    const paused = await detail("zero");
    expect(paused.experiment.state).toBe("paused");
    expect(paused.experiment.suspectPrefixes).toHaveLength(2);
    const last = paused.changes.at(-1) as { actor: string; action: string; reason: string };
    expect(last).toMatchObject({ actor: "guardrail", action: "pause" });
    expect(last.reason).toMatch(/^paused, not rolled back: every finding comes mostly from a few network prefixes/);
    expect(last.reason).toMatch(
      /r1: zero-result rate [0-9.]+ vs control 0\.000: .* \[the top 2 network prefixes hold 100\.0 % of r1's 400 zero-result searches\]/,
    );
    // Paused: control serves everyone, outside the experiment, as after a rollback.
    const served = await search("wood chair", burst[0] as string, "192.0.2.12", adminView);
    expect(served.body).toMatchObject({ round: 0, experiment: null, arm: null });
    // Nothing else changes a paused experiment: no ramp, no second experiment.
    const ramp = await admin("PATCH", "/admin/experiments/zero", { arms: HALF });
    expect(ramp.res.status).toBe(409);
    expect(ramp.body.detail).toMatch(/paused: resume it before ramping/);
    const second = await admin("POST", "/admin/experiments", { id: "other", design: "ab", arms: HALF });
    expect(second.res.status).toBe(409);
    expect(second.body.detail).toMatch(/paused/);
    // Resumed without the suspect networks: the same events no longer trip anything.
    const resumed = await admin("POST", "/admin/experiments/zero/resume", { reason: "a scraper" });
    expect(resumed.res.status).toBe(200);
    expect(resumed.body.experiment).toMatchObject({ state: "running", excludedPrefixes: paused.experiment.suspectPrefixes });
    expect(resumed.body.experiment).not.toHaveProperty("suspectPrefixes");
    expect((await admin("POST", "/admin/experiments/zero/resume", {})).res.status).toBe(409);
    await cron();
    const after = await detail("zero");
    expect(after.experiment.state).toBe("running");
    expect(after.changes.map((c: { action: string; actor: string }) => `${c.action} ${c.actor}`)).toEqual(["start admin", "pause guardrail", "resume admin"]);
    expect(after.report.arms.map((a: { counted: { searches: number } }) => a.counted.searches).reduce((x: number, y: number) => x + y, 0)).toBe(160);
    expect((await search("wood chair", burst[0] as string, "192.0.2.12", adminView)).body).toMatchObject({ experiment: "zero", arm: "r1" });
    expect((await admin("POST", "/admin/experiments/zero/rollback", {})).res.status).toBe(200);
  });
});
