import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { publishRound, unpublishRound } from "../../publish/publisher.js";
import type { PublishTarget, SqlDatabase } from "../../publish/target.js";
import { clearRoundCache } from "../../workers/search/catalog.js";
import { clearServingConfigCache } from "../../workers/search/experiments/live.js";
import { SERVING_CONFIG_KEY, type ServingConfig } from "../../workers/search/experiments/store.js";
import { wireSource } from "../support/wire-round.js";
import { get, getJson, publish, publishReport, target, testRounds } from "./helpers.js";

const rounds = await testRounds();

/** A target whose shard 2 fails after `n` statements (its DELETE counts as one): a publish killed midway. */
function failingTarget(n: number): PublishTarget {
  const t = target();
  let left = n;
  const failing = (db: SqlDatabase): SqlDatabase => ({
    scalar: db.scalar,
    async execute(statements) {
      for (const s of statements) {
        if (left-- <= 0) throw new Error("simulated crash");
        await db.execute([s]);
      }
    },
  });
  return { ...t, shards: t.shards.map((s, j) => (j === 2 ? failing(s) : s)) };
}

const round1 = { ...rounds.synthetic0, manifest: { ...rounds.synthetic0.manifest, round: 1 } };

describe("publishing", () => {
  it("is atomic: an interrupted publish leaves the served round untouched, and a rerun completes it", async () => {
    expect(await publish(rounds.synthetic0)).toBe("published");
    const before = (await getJson<{ round: number; results: Array<{ id: string }> }>("/v1/search?q=wood%20table&limit=20")).body;
    expect(before.round).toBe(0);

    await expect(publishRound(failingTarget(1), wireSource(round1), null)).rejects.toThrow(/simulated crash/);
    clearRoundCache();
    const listed = (await getJson<{ rounds: Array<{ round: number }> }>("/v1/rounds")).body.rounds.map((r) => r.round);
    expect(listed).toEqual([0]);
    const during = (await getJson<{ round: number; results: Array<{ id: string }> }>("/v1/search?q=wood%20table&limit=20")).body;
    expect(during).toMatchObject({ round: 0, results: before.results });

    expect(await publish(round1)).toBe("published");
    const after = (await getJson<{ round: number; results: Array<{ id: string }> }>("/v1/search?q=wood%20table&limit=20")).body;
    expect(after.round).toBe(1);
    expect(after.results).toEqual(before.results); // same index content
    expect(await publish(round1)).toBe("unchanged");
  });

  it("refuses to overwrite a published round with other content", async () => {
    // Other content = another content hash (over every file, the split and the config: test/training/round-artifact.test.ts).
    const other = { ...round1, manifest: { ...round1.manifest, contentHash: "f".repeat(64) } };
    await expect(publish(other)).rejects.toThrow(/already published with other content/);
  });

  it("replaces it when asked (npm start on local state), even while it serves", async () => {
    const other = { ...round1, manifest: { ...round1.manifest, contentHash: "e".repeat(64) } };
    const hash = async () => JSON.parse((await env.CATALOG.prepare("SELECT manifest FROM rounds WHERE round = 1").first("manifest")) as string).contentHash;
    const original = await hash();
    expect((await publishReport(other, target(), { replace: true })).outcome).toBe("replaced");
    expect(await hash()).toBe(other.manifest.contentHash);
    expect(await hash()).not.toBe(original);
    clearRoundCache();
    expect((await getJson<{ round: number }>("/v1/search?q=wood%20table")).body.round).toBe(1);
    expect((await publishReport(round1, target(), { replace: true })).outcome).toBe("replaced");
    expect(await hash()).toBe(original);
  });

  it("unpublishes only rounds no arm serves", async () => {
    await expect(unpublishRound(target(), 1)).rejects.toThrow(/serving traffic/);
    // D1's experiments table decides, not the KV mirror: a mirror that names round 1 alone does not protect it.
    const config = servingConfig([{ round: 0, weight: 10_000 }]);
    await env.CACHE.put(SERVING_CONFIG_KEY, JSON.stringify(servingConfig([{ round: 1, weight: 10_000 }])));
    await env.CATALOG.prepare("INSERT INTO experiments (id, state, config, created_at, updated_at) VALUES ('t', 'running', ?, ?, ?)")
      .bind(JSON.stringify({ ...config.experiment, state: "running" }), config.updatedAt, config.updatedAt)
      .run();
    await expect(unpublishRound(target(), 0)).rejects.toThrow(/serving traffic/);
    await unpublishRound(target(), 1);
    await env.CATALOG.prepare("DELETE FROM experiments WHERE id = 't'").run();
    clearRoundCache();
    const listed = (await getJson<{ rounds: Array<{ round: number }> }>("/v1/rounds")).body.rounds.map((r) => r.round);
    expect(listed).toEqual([0]);
    expect(Number(await env.SHARD_0?.prepare("SELECT COUNT(*) AS n FROM postings WHERE round = 1").first("n"))).toBe(0);
    await expect(unpublishRound(target(), 7)).rejects.toThrow(/not published/);
    await env.CACHE.delete(SERVING_CONFIG_KEY);
  });

  it("buckets users across experiment arms stably", async () => {
    expect(await publish(round1)).toBe("published");
    await env.CACHE.put(
      SERVING_CONFIG_KEY,
      JSON.stringify(
        servingConfig([
          { round: 0, weight: 5000 },
          { round: 1, weight: 5000 },
        ]),
      ),
    );
    clearServingConfigCache();
    const seen = new Map<string, number>();
    const adminView = { authorization: `Bearer ${env.ADMIN_TOKEN}` }; // under an experiment the round is shown to the admin only
    for (let u = 0; u < 40; u++) {
      const res = await get("/v1/search?q=lamp&limit=1", {}, { "x-cogr-user": `user-${u}`, ...adminView });
      const r = ((await res.json()) as { round: number }).round;
      seen.set(`user-${u}`, r);
      const again = await get("/v1/search?q=lamp&limit=1", {}, { "x-cogr-user": `user-${u}`, ...adminView });
      expect(((await again.json()) as { round: number }).round).toBe(r);
    }
    const arms = new Set(seen.values());
    expect(arms).toEqual(new Set([0, 1]));
  });
});

function servingConfig(arms: Array<{ round: number; weight: number }>): ServingConfig {
  const experiment = { id: "t", design: "ab" as const, salt: "s", arms, control: 0, interleaveShareBp: 0 };
  return { version: 1, experiment, defaultRound: null, updatedAt: new Date().toISOString() };
}
