import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockKeywordPosting, blockWordPosting, type PostingBlock, postingsFromBlocks } from "../../core/blocks.js";
import { KeywordIndex } from "../../core/inverted-index.js";
import { encodeWordPosting } from "../../core/postings.js";
import { executeQuery, planQuery, type QueryPlan } from "../../core/retrieve.js";
import { INDEX_FORMAT_VERSION, indexHeader, parseIndexHeader } from "../../core/round-format.js";
import { keywordKey, wordKey } from "../../core/shard.js";
import { executeTopK } from "../../core/topk.js";
import { decodeSubBlock, decodeWordBlock, frontierOf, wordSubBlocks } from "../../core/word-blocks.js";
import { bm25Params, wordPostings } from "../support/arbitraries.js";

const VOCAB = ["chair", "arm chair", "red", "red chair", "red red chair", "table", "oak table", "lamp", "desk lamp", "sofa", "wood", "gray sofa", "bed"];

/** A plan's postings as the worker fetches them: blocked, word blocks with sub-blocks of `sub` entries (or in format 2). */
function blocked(index: KeywordIndex, plan: QueryPlan, max: number, sub: number, format2 = false): Map<string, PostingBlock[]> {
  const blocks = new Map<string, PostingBlock[]>();
  for (const k of plan.keywords) {
    const p = index.keywordPostings.get(k);
    if (p) blocks.set(keywordKey(k), blockKeywordPosting(p, max));
  }
  for (const w of plan.words) {
    const p = index.wordPostings.get(w);
    if (!p) continue;
    const b = blockWordPosting(p, max, sub);
    // Format 2: the same slices, encoded without skip data (a round published before index format 3).
    blocks.set(
      wordKey(w),
      format2
        ? b.map((x) => {
            const d = decodeWordBlock(x.data);
            return { ...x, data: encodeWordPosting(d) };
          })
        : b,
    );
  }
  return blocks;
}

const rows = fc.array(
  fc.record({
    name: fc.constantFrom("alpha", "beta chair", "gamma table", "red chair", "gray sofa", "red red lamp"),
    keywords: fc.subarray(VOCAB),
  }),
  { minLength: 1, maxLength: 300 },
);

describe("word blocks with block-max skip data", () => {
  it("decode whole and by sub-block to the posting, with each sub-block's (tf, length) frontier (property)", () => {
    fc.assert(
      fc.property(wordPostings(300), fc.integer({ min: 1, max: 8 }), (p, sub) => {
        for (const b of blockWordPosting(p, 1000, sub)) {
          const whole = decodeWordBlock(b.data);
          const subs = wordSubBlocks(b.data);
          const parts = Array.from({ length: subs.count }, (_, s) => decodeSubBlock(b.data, subs, s));
          expect(Uint32Array.from(parts.flatMap((x) => [...x.items]))).toEqual(whole.items);
          parts.forEach((x, s) => {
            expect(x.items.length).toBeLessThanOrEqual(sub);
            expect(subs.lasts[s]).toBe(x.items[x.items.length - 1]);
            const front = Array.from({ length: (subs.frontierStarts[s + 1] as number) - (subs.frontierStarts[s] as number) }, (_, q) => [
              subs.frontierTfs[(subs.frontierStarts[s] as number) + q] as number,
              subs.frontierLengths[(subs.frontierStarts[s] as number) + q] as number,
            ]);
            const entries = [...x.tfs].map((tf, j) => [tf, x.lengths[j] as number]);
            expect(front.length).toBeGreaterThan(0);
            expect(front.length).toBeLessThanOrEqual(8);
            // Every entry is dominated by a point, and (sub-blocks of at most 8 entries: under the cap) every point is an entry.
            expect(entries.filter(([tf, len]) => !front.some(([ft, fl]) => (ft as number) >= (tf as number) && (fl as number) <= (len as number)))).toEqual([]);
            expect(front.filter(([ft, fl]) => !entries.some(([tf, len]) => tf === ft && len === fl))).toEqual([]);
          });
          expect(whole.items.length).toBe(b.count);
        }
      }),
    );
  });
});

describe("a sub-block's frontier", () => {
  it("keeps the (tf, length) Pareto front, and past 8 points merges the lowest two into one that dominates both", () => {
    expect(frontierOf([1, 5, 3, 5, 2], [4, 9, 6, 12, 4], 0, 5)).toEqual([
      [5, 9],
      [3, 6],
      [2, 4],
    ]);
    const tfs = Array.from({ length: 10 }, (_, j) => 10 - j);
    const lengths = Array.from({ length: 10 }, (_, j) => 100 - j);
    const front = frontierOf(tfs, lengths, 0, 10);
    expect(front).toHaveLength(8);
    expect(front.slice(0, 7)).toEqual(tfs.slice(0, 7).map((tf, j) => [tf, lengths[j]]));
    expect(front[7]).toEqual([3, 91]);
  });
});

describe("block-max top-k", () => {
  it("gives the reference's page bit for bit, for any page, k1 and b, and its explanations' postings (property)", () => {
    fc.assert(
      fc.property(
        rows,
        fc.subarray(VOCAB, { maxLength: 4 }),
        fc.constantFrom("", "red", "wood table", "sofa", "red chair"),
        fc.record({ max: fc.integer({ min: 113, max: 600 }), sub: fc.integer({ min: 1, max: 16 }), chunk: fc.integer({ min: 1, max: 40 }) }),
        fc.oneof(
          fc.record({ limit: fc.integer({ min: 1, max: 5 }), offset: fc.integer({ min: 0, max: 5 }), related: fc.boolean() }),
          fc.record({ limit: fc.integer({ min: 1, max: 30 }), offset: fc.integer({ min: 0, max: 300 }), related: fc.boolean() }),
        ),
        bm25Params,
        (items, generated, raw, size, page, params) => {
          const index = KeywordIndex.build(items.map((r, j) => ({ id: String(j), ...r })));
          const plan = planQuery(generated, raw);
          const opts = { ...page, params };
          const reference = executeQuery(plan, index.fetch(plan), index, opts);
          const got = executeTopK(plan, blocked(index, plan, size.max, size.sub), index, opts, { smallSet: 0, chunk: size.chunk, wordsMax: 99 });
          expect(got.page).toEqual(reference);
          expect(executeTopK(plan, blocked(index, plan, size.max, size.sub, true), index, opts, { smallSet: 0, chunk: size.chunk, wordsMax: 99 }).page).toEqual(
            reference,
          );
          // What an explanation reads: every hit's entry in each word's posting, as the full posting has it.
          const fetched = got.fetched();
          const full = index.fetch(plan);
          for (const h of got.page.hits) {
            for (const [w, p] of full.words) {
              const j = p.items.indexOf(h.item);
              const q = fetched.words.get(w);
              const at = q ? q.items.indexOf(h.item) : -1;
              expect([at >= 0, at >= 0 ? q?.tfs[at] : p.tfs[j], at >= 0 ? q?.df : p.items.length]).toEqual([
                j >= 0,
                j >= 0 ? p.tfs[j] : undefined,
                p.items.length,
              ]);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("under a filter (core/filters.ts), gives the reference's filtered page, total and retrieved set bit for bit (property)", () => {
    fc.assert(
      fc.property(
        rows,
        fc.subarray(VOCAB, { maxLength: 4 }),
        fc.constantFrom("", "red", "sofa", "red chair"),
        fc.integer({ min: 2, max: 5 }),
        fc.record({ limit: fc.integer({ min: 1, max: 10 }), offset: fc.integer({ min: 0, max: 20 }), related: fc.boolean() }),
        (items, generated, raw, mod, page) => {
          const index = KeywordIndex.build(items.map((r, j) => ({ id: String(j), ...r })));
          const plan = planQuery(generated, raw);
          const filter = (o: number) => o % mod !== 0;
          const opts = { ...page, filter, keepRetrieved: true };
          const reference = executeQuery(plan, postingsFromBlocks(plan, blocked(index, plan, 16_384, 4), page.offset + page.limit, filter), index, opts);
          // Block-max whatever the number of words, and the worker's choice of path (one word only).
          for (const wordsMax of [99, undefined]) {
            const got = executeTopK(plan, blocked(index, plan, 16_384, 4), index, opts, { smallSet: 0, chunk: 3, ...(wordsMax ? { wordsMax } : {}) });
            expect(got.page).toEqual(reference);
            expect(got.page.hits.every((h) => filter(h.item))).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("gives the reference's page bit for bit over random postings, where the bounds prune most (property)", () => {
    const posting = (n: number) =>
      fc.array(fc.record({ tf: fc.integer({ min: 1, max: 4 }), len: fc.integer({ min: 1, max: 9 }), keep: fc.boolean() }), { minLength: n, maxLength: n });
    fc.assert(
      fc.property(
        fc.integer({ min: 50, max: 600 }).chain((n) =>
          fc.record({
            n: fc.constant(n),
            words: fc.array(posting(n), { minLength: 1, maxLength: 3 }),
            retrieved: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
          }),
        ),
        fc.record({
          sub: fc.integer({ min: 1, max: 12 }),
          chunk: fc.integer({ min: 1, max: 24 }),
          limit: fc.integer({ min: 1, max: 12 }),
          offset: fc.integer({ min: 0, max: 4 }),
        }),
        bm25Params,
        fc.option(fc.array(fc.constantFrom(0, 0.5, 1, 1.7, 3), { minLength: 3, maxLength: 3 }), { nil: undefined }),
        fc.option(fc.record({ mod: fc.integer({ min: 2, max: 5 }), keepRetrieved: fc.boolean() }), { nil: undefined }),
        ({ n, words, retrieved }, t, params, weights, filtered) => {
          const names = words.map((_, j) => `w${j}`);
          const wordPostingsOf = new Map(
            words.map((entries, j) => {
              const kept = entries.map((e, i) => ({ ...e, i })).filter((e) => e.keep);
              const items = Uint32Array.from(kept.map((e) => e.i));
              return [names[j] as string, { items, tfs: Uint32Array.from(kept.map((e) => e.tf)), lengths: Uint32Array.from(kept.map((e) => e.len)) }];
            }),
          );
          const all = Uint32Array.from(retrieved.flatMap((r, i) => (r ? [i] : [])));
          const index = KeywordIndex.fromPostings(
            Array.from({ length: n }, (_, i) => String(i)),
            5 * n,
            new Map([["k", all]]),
            wordPostingsOf,
          );
          // The plan's per-word weights (core/query-terms.ts: the typed words' weight), when given.
          const plan: QueryPlan = weights ? { keywords: ["k"], words: names, weights: weights.slice(0, names.length) } : { keywords: ["k"], words: names };
          // A filter (core/filters.ts) narrows I_ret(q) first; with keepRetrieved the page carries the narrowed set.
          const opts = filtered
            ? { limit: t.limit, offset: t.offset, params, filter: (i: number) => i % filtered.mod !== 0, keepRetrieved: filtered.keepRetrieved }
            : { limit: t.limit, offset: t.offset, params };
          const got = executeTopK(plan, blocked(index, plan, 16_384, t.sub), index, opts, { smallSet: 0, chunk: t.chunk, wordsMax: 99 });
          expect(got.page).toEqual(executeQuery(plan, index.fetch(plan), index, opts));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("scores a chunk whose bound only ties the k-th score when it holds smaller ordinals, and skips it when not", () => {
    // Every item scores alike but 150 (tf 3): its chunk goes first and fills the heap with 150, 151, 152; chunk 0 ties.
    const n = 200;
    const items = Uint32Array.from({ length: n }, (_, i) => i);
    const index = KeywordIndex.fromPostings(
      Array.from({ length: n }, (_, i) => String(i)),
      5 * n,
      new Map([["k", items]]),
      new Map([["w", { items, tfs: Uint32Array.from(items, (i) => (i === 150 ? 3 : 1)), lengths: new Uint32Array(n).fill(5) }]]),
    );
    const plan: QueryPlan = { keywords: ["k"], words: ["w"] };
    const got = executeTopK(plan, blocked(index, plan, 16_384, 10), index, { limit: 3 }, { smallSet: 0, chunk: 10 });
    expect(got.page.hits.map((h) => h.item)).toEqual([150, 0, 1]);
    expect(got.page).toEqual(executeQuery(plan, index.fetch(plan), index, { limit: 3 }));
    // Chunk 15 and chunk 0 scored (10 candidates and 10 entries each); every other chunk skipped on the tie rule.
    expect(got.visited).toBe(40);
  });

  it("scores only the segments that can reach a small page of a large I_ret(q)", () => {
    // Every item holds "chair"; a few in a short bag (a high BM25 term), the rest tie in a long one.
    const items = Array.from({ length: 3000 }, (_, j) => ({
      id: String(j),
      name: `item ${j}`,
      keywords: j % 500 === 7 ? ["chair"] : ["chair", "oak table with drawers and shelves"],
    }));
    const index = KeywordIndex.build(items);
    const plan = planQuery(["chair"], "");
    const full = index.fetch(plan);
    const postings = (full.keywords.get("chair")?.length ?? 0) + (full.words.get("chair")?.items.length ?? 0);
    expect(postings).toBe(6000);
    const got = executeTopK(plan, blocked(index, plan, 16_384, 128), index, { limit: 10 });
    expect(got.page).toEqual(executeQuery(plan, full, index, { limit: 10 }));
    expect(got.page.hits.map((h) => h.item)).toEqual([7, 507, 1007, 1507, 2007, 2507, 0, 1, 2, 3]);
    expect(got.page.total).toBe(3000);
    // The six segments holding a short bag, and the first of the ties: 7 sub-blocks of 128 entries and their candidates.
    expect(got.visited).toBeLessThanOrEqual(7 * 2 * 128);
  });
});

describe("the index header", () => {
  it("is written as format 3, reads format 2 (word blocks without skip data) and refuses any other version", () => {
    const index = KeywordIndex.build([{ id: "1", name: "red chair", keywords: ["chair"] }]);
    const h = indexHeader(index, 512);
    expect(h.version).toBe(INDEX_FORMAT_VERSION);
    expect(INDEX_FORMAT_VERSION).toBe(3);
    expect(parseIndexHeader(JSON.stringify({ ...h, version: 2 }), "postings.jsonl").version).toBe(2);
    expect(() => parseIndexHeader(JSON.stringify({ ...h, version: 4 }), "postings.jsonl")).toThrow(
      "postings.jsonl: unsupported cogr-index version 4 (this build reads 2 and 3)",
    );
    expect(() => parseIndexHeader(JSON.stringify({ ...h, version: "3" }), "postings.jsonl")).toThrow(/unsupported cogr-index version 3/);
  });
});
