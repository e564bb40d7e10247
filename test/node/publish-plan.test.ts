/** The publish plan's limits, over random rounds: no statement or row near D1's limits, whatever the postings or item text. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BLOCK_LIMITS } from "../../core/blocks.js";
import { KeywordIndex } from "../../core/inverted-index.js";
import { extractorSpec } from "../../core/query-generator.js";
import { contentHashInput, type RoundItem, type RoundManifest } from "../../core/round-format.js";
import { PUBLISH_LIMITS } from "../../publish/limits.js";
import { type Batch, planBatches } from "../../publish/plan.js";
import { memorySource } from "../../publish/source.js";

/** D1's own limits (the plan keeps a margin below them). */
const D1 = { statementBytes: 100_000, rowBytes: 2_000_000 } as const;

function manifest(round: number): RoundManifest {
  const body = { checksums: { x: String(round) }, split: { seed: 1, devQueries: 0, train: [], dev: [] }, config: {} };
  return {
    format: "cogr-round",
    version: 2,
    round,
    createdAt: "2026-12-02T00:00:00.000Z",
    counts: { items: 0, keywords: 0, words: 0 },
    metrics: {},
    ...body,
    contentHash: contentHashInput(body).length.toString(16).padStart(64, "0"),
  };
}

const text = fc.string({ unit: fc.constantFrom("a", "b", "é", "'", " ", "😀", "x"), maxLength: 3000 });

async function collect(gen: AsyncGenerator<Batch>): Promise<Batch[]> {
  const out: Batch[] = [];
  for await (const b of gen) out.push(b);
  return out;
}

describe("the publish plan", () => {
  it("never emits a statement over its limit, a block over its bound, or a batch over its size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: text, keywords: fc.array(fc.constantFrom("chair", "wall", "gray sofa", "bed", "x'y", "wood table"), { maxLength: 6 }) }), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        async (rows, copies, shards) => {
          // Copies make long postings (thousands of entries) out of a small random catalogue.
          const items: RoundItem[] = [];
          for (let c = 0; c < copies * 50; c++)
            for (const [j, r] of rows.entries())
              items.push({ id: String(items.length), name: r.name, class: "c", category: `${c}/${j}`, keywords: r.keywords });
          const index = KeywordIndex.build(items);
          const df = new Map([...index.keywordPostings].map(([k, p]) => [k, p.length] as [string, number]));
          const source = memorySource({ manifest: manifest(1), items, index, queryGenerator: extractorSpec(df, index.itemCount) }, 512);
          for (const b of await collect(planBatches(source, shards, null))) {
            expect(b.statements.length).toBeLessThanOrEqual(PUBLISH_LIMITS.statementsPerBatch * 2);
            for (const s of b.statements) {
              expect(new TextEncoder().encode(s).length).toBeLessThan(D1.statementBytes);
              expect(s.length).toBeLessThanOrEqual(PUBLISH_LIMITS.statementBytes);
            }
          }
          for (const e of source.postings()) for (const blk of e.blocks) expect(blk.data.length).toBeLessThanOrEqual(512);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("keeps the default block bound far inside D1's row limit", () => {
    // A block row is its hash and its base64 bytes.
    expect(Math.ceil(BLOCK_LIMITS.maxBlockBytes / 3) * 4 + 64).toBeLessThan(PUBLISH_LIMITS.statementBytes / 2);
    expect(PUBLISH_LIMITS.statementBytes).toBeLessThan(D1.rowBytes);
  });

  it("diffs against a base: nothing to write for identical content, only the changed item and postings otherwise", async () => {
    const items: RoundItem[] = Array.from({ length: 500 }, (_, j) => ({
      id: String(j),
      name: `item ${j % 40} chair`,
      class: "c",
      category: "",
      keywords: [`k${j % 17}`, "wall"],
    }));
    const index = KeywordIndex.build(items);
    const spec = extractorSpec(new Map(), index.itemCount);
    const a = memorySource({ manifest: manifest(1), items, index, queryGenerator: spec });
    const base = { manifest: { chain: [1], shardCount: 2 } as never, source: a };
    const same = await collect(planBatches({ ...a, manifest: manifest(2) }, 2, base));
    expect(same.reduce((s, b) => s + b.rows, 0)).toBe(0);
    const changed = items.map((it, j) => (j === 123 ? { ...it, keywords: ["k3", "lamp"] } : it));
    const b = memorySource({ manifest: manifest(2), items: changed, index: KeywordIndex.build(changed), queryGenerator: spec });
    const batches = await collect(planBatches(b, 2, base));
    const catalogue = batches.filter((x) => x.db < 0).reduce((s, x) => s + x.rows, 0);
    expect(catalogue).toBe(1);
    const sql = batches.flatMap((x) => x.statements).join("\n");
    // The item's own postings change ("k:lamp" new; "k:k4", "k:wall", "w:wall", … lose or change an entry), unrelated ones do not.
    expect(sql).toContain("'k:lamp'");
    expect(sql).not.toContain("'k:k5'");
    await expect(
      collect(
        planBatches(
          memorySource({ manifest: manifest(3), items: changed.slice(1), index: KeywordIndex.build(changed.slice(1)), queryGenerator: spec }),
          2,
          base,
        ),
      ),
    ).rejects.toThrow(/items differ at ordinal 0/);
  });
});
