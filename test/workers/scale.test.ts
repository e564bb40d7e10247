/**
 * The storage changes for large catalogues, in workerd on real local D1/KV:
 * resumable and incremental publish, a posting of 10M entries, and an
 * extractor whose df ships apart from the generator.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { blockKeywordPosting } from "../../core/blocks.js";
import { KeywordIndex } from "../../core/inverted-index.js";
import { decodeKeywordPosting } from "../../core/postings.js";
import { type ExtractorGeneratorSpec, loadQueryGenerator, splitExtractorDf } from "../../core/query-generator.js";
import { planQuery } from "../../core/retrieve.js";
import { indexHeader, indexPostings, postingLine, type RoundItem } from "../../core/round-format.js";
import { keywordKey } from "../../core/shard.js";
import { unpublishRound } from "../../publish/publisher.js";
import type { PublishSource } from "../../publish/source.js";
import { shardDatabases } from "../../workers/search/bindings.js";
import { D1IndexStore } from "../../workers/search/store/d1-store.js";
import { type WireRound, wireIndex } from "../support/wire-round.js";
import { clearIsolateCaches, getJson, publish, publishReport, target, testRounds } from "./helpers.js";

const rounds = await testRounds();
const s0 = rounds.synthetic0;

type Answer = { round: number; total: number; keywords: string[]; results: Array<{ id: string; score: number }> };

/** A copy of a wire round under another number and content hash, with some items' keywords changed. */
function variant(w: WireRound, round: number, change: (item: RoundItem, j: number) => RoundItem): WireRound {
  const items = w.items.map(change);
  const index = KeywordIndex.build(items, { queryTerms: w.header.queryTerms });
  const hash = `${w.manifest.contentHash.slice(0, 56)}${String(round).padStart(8, "0")}`;
  return {
    ...w,
    manifest: { ...w.manifest, round, contentHash: hash },
    items,
    header: indexHeader(index, w.header.maxBlockBytes),
    postings: [...indexPostings(index, w.header.maxBlockBytes)].map(postingLine),
  };
}

/** The round's answers equal core's over the same content. */
async function expectCore(w: WireRound, queries: readonly string[]) {
  const index = wireIndex(w);
  const generate = loadQueryGenerator(w.queryGenerator) as (q: string) => string[];
  for (const q of queries) {
    const { body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}&limit=50`);
    expect(body.round, q).toBe(w.manifest.round);
    const page = index.search(planQuery(generate(q), q, index.queryTerms), { limit: 50, related: true });
    expect(body.total, q).toBe(page.total);
    expect(
      body.results.map((r) => [r.id, r.score]),
      q,
    ).toEqual(page.hits.map((h) => [index.ids[h.item], h.score]));
  }
}

const QUERIES = ["chair", "wood chair", "grey rug", "lamp", "bed", "glass table", "metal lamp", "red"];

describe("publishing large rounds", () => {
  it("resumes a killed publish after its last committed batch, at any point", async () => {
    const full = await publishReport({ ...s0, manifest: { ...s0.manifest, round: 40 } });
    expect(full.outcome).toBe("published");
    await unpublishRound(target(), 40, { evenIfServing: true });
    for (const kill of [1, 2, full.batches - 1]) {
      const r = { ...s0, manifest: { ...s0.manifest, round: 40 + kill } };
      // The publish stops (throws) once `kill` batches are committed, as a kill there would leave it.
      const stop = (_step: string, p: { batches: number }) => {
        if (p.batches >= kill) throw new Error(`stopped after ${p.batches} batches`);
      };
      await expect(publish(r, target(), { progress: stop })).rejects.toThrow(/stopped after/);
      const resumed = await publishReport(r);
      expect(resumed).toMatchObject({ outcome: "published", resumedFrom: kill, batches: full.batches });
      clearIsolateCaches();
      await expectCore(r, QUERIES);
      await unpublishRound(target(), 40 + kill, { evenIfServing: true });
    }
  });

  it("writes only what changed when a round builds on a published one, and serves core's results", async () => {
    const a = { ...s0, manifest: { ...s0.manifest, round: 50 } };
    const full = await publishReport(a);
    // 3 of 150 items (2 %) get another keyword set.
    const b = variant(a, 51, (it, j) => (j % 50 === 7 ? { ...it, keywords: [...it.keywords.slice(1), "velvet"] } : it));
    const inc = await publishReport(b, target(), { base: a });
    expect(inc.manifest.chain).toEqual([51, 50]);
    const itemRows = Number(await env.CATALOG.prepare("SELECT COUNT(*) AS n FROM items WHERE round = 51").first("n"));
    expect(itemRows).toBe(3);
    expect(inc.rows + inc.blocks).toBeLessThan((full.rows + full.blocks) * 0.5);
    clearIsolateCaches();
    await expectCore(b, [...QUERIES, "velvet"]);
    const item = b.items[7] as RoundItem;
    expect((await getJson<{ keywords: string[] }>(`/v1/items/${item.id}`)).body.keywords).toEqual(item.keywords);
    const untouched = b.items[8] as RoundItem;
    expect((await getJson<{ name: string }>(`/v1/items/${untouched.id}`)).body.name).toBe(untouched.name);
    // A round another builds on stays until that one goes; a dropped keyword is a tombstone.
    await expect(unpublishRound(target(), 50, { evenIfServing: true })).rejects.toThrow(/base of round 51/);
    const c = variant(b, 52, (it) => ({ ...it, keywords: it.keywords.filter((k) => k !== "velvet") }));
    await publish(c, target(), { base: b });
    clearIsolateCaches();
    await expectCore(c, ["velvet", "chair"]);
    for (const r of [52, 51, 50]) await unpublishRound(target(), r, { evenIfServing: true });
    const orphans = Number(await env.SHARD_0?.prepare("SELECT COUNT(*) AS n FROM blocks WHERE hash NOT IN (SELECT hash FROM postings)").first("n"));
    expect(orphans).toBe(0);
  });

  it("stores and reads back a posting of 10M entries in blocks", async () => {
    // Entry j is ordinal 3j + (j mod 3); memory stays lean (workerd's isolate has 128 MB): the list exists only while it is cut.
    const N = 10_000_000;
    const at = (j: number) => j * 3 + (j % 3);
    const blocks = blockKeywordPosting(Uint32Array.from({ length: N }, (_, j) => at(j)));
    expect(blocks.length).toBeGreaterThan(500);
    const source: PublishSource = {
      manifest: { ...s0.manifest, round: 60, contentHash: "a".repeat(64) },
      header: { ...s0.header, itemCount: 3 * N, keywords: 1, words: 0 },
      items: () => [],
      postings: () => [{ key: keywordKey("everything"), count: N, blocks }],
      queryGenerator: s0.queryGenerator,
    };
    expect((await publishReport(source)).outcome).toBe("published");
    const store = new D1IndexStore(shardDatabases(env));
    const got =
      (await store.postings({ round: 60, contentHash: "a".repeat(64), shardCount: 4, chain: [60] }, [keywordKey("everything")])).get(
        keywordKey("everything"),
      ) ?? [];
    expect(got.map((b) => [b.first, b.last, b.count])).toEqual(blocks.map((b) => [b.first, b.last, b.count]));
    let j = 0;
    let wrong = 0;
    for (const b of got) for (const item of decodeKeywordPosting(b.data)) if (item !== at(j++)) wrong++;
    expect([j, wrong]).toEqual([N, 0]);
    await unpublishRound(target(), 60, { evenIfServing: true });
  });
});

describe("rounds with different shard counts", () => {
  it("serve side by side: a round sharded 2 ways reads SHARD_0..1 of a 4-shard worker", async () => {
    const two = { ...s0, manifest: { ...s0.manifest, round: 80, contentHash: "c".repeat(64) } };
    const t = target();
    const report = await publishReport(two, { ...t, shards: t.shards.slice(0, 2) });
    expect(report.manifest.shardCount).toBe(2);
    expect(Number(await env.SHARD_3?.prepare("SELECT COUNT(*) AS n FROM postings WHERE round = 80").first("n"))).toBe(0);
    clearIsolateCaches();
    await expectCore(two, QUERIES);
    await unpublishRound(t, 80, { evenIfServing: true });
  });
});

describe("an extractor whose df ships apart (a large vocabulary)", () => {
  beforeAll(() => clearIsolateCaches());

  it("gives the keywords and results of the whole df table", async () => {
    const whole = s0.queryGenerator as ExtractorGeneratorSpec;
    const { head, tail } = splitExtractorDf(whole, { headKeywords: Math.floor(whole.df.length / 4), keywordsPerBucket: 40 });
    expect(head.tail?.buckets).toBeGreaterThan(3);
    const r = { ...s0, manifest: { ...s0.manifest, round: 70, contentHash: "b".repeat(64) }, queryGenerator: head, queryDfTail: tail };
    expect(await publish(r)).toBe("published");
    const generate = loadQueryGenerator(whole) as (q: string) => string[];
    for (const q of ["wood chair", "grey rug with fringe", "metal desk lamp", "velvet sofa bed"]) {
      const { body } = await getJson<Answer>(`/v1/search?q=${encodeURIComponent(q)}`);
      expect(body.keywords, q).toEqual(generate(q));
    }
    await expectCore({ ...r, queryGenerator: whole }, QUERIES);
    await unpublishRound(target(), 70, { evenIfServing: true });
  });
});
