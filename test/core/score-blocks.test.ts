import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockWordPosting, type PostingBlock } from "../../core/blocks.js";
import { BM25_DEFAULTS, type Bm25Params } from "../../core/bm25.js";
import { encodeWordPosting, type WordPosting } from "../../core/postings.js";
import { scoreCandidates } from "../../core/retrieve.js";
import { type BlockTerms, type BlockTermsCache, blockTermsKey, POSITION_MAP, scoreFromBlocks } from "../../core/score-blocks.js";
import { wordKey } from "../../core/shard.js";
import { decodeWordBlock } from "../../core/word-blocks.js";
import { bm25Params } from "../support/arbitraries.js";

const WORDS = ["chair", "oak", "red", "sofa"] as const;

/** A BlockTermsCache over a Map, admitting what `admit` says; `sets` counts what it kept. */
function mapCache(admit: (key: string) => boolean = () => true) {
  const map = new Map<string, BlockTerms>();
  const cache = {
    sets: 0,
    map,
    get: (key: string) => map.get(key),
    admits: (key: string, _entries: number) => admit(key),
    set: (key: string, terms: BlockTerms) => {
      cache.sets++;
      map.set(key, terms);
    },
  };
  return cache satisfies BlockTermsCache;
}

/** A posting over [0, universe): tfs and lengths mostly inside the term table, some past it, some of several varint bytes. */
const posting = (universe: number) =>
  fc.uniqueArray(fc.integer({ min: 0, max: universe - 1 }), { maxLength: 150, size: "+1" }).chain((xs) => {
    const items = Uint32Array.from(xs.sort((a, b) => a - b));
    const n = items.length;
    return fc
      .tuple(
        fc.array(fc.oneof({ arbitrary: fc.integer({ min: 1, max: 4 }), weight: 6 }, fc.integer({ min: 1, max: 70_000 })), { minLength: n, maxLength: n }),
        fc.array(fc.oneof({ arbitrary: fc.integer({ min: 0, max: 40 }), weight: 4 }, fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 2 ** 31 })), {
          minLength: n,
          maxLength: n,
        }),
      )
      .map(([tfs, lengths]): WordPosting => ({ items, tfs: Uint32Array.from(tfs), lengths: Uint32Array.from(lengths) }));
  });

/** Within the position map, and past it (where the scores come from merging decoded blocks instead). */
const universes = fc.constantFrom(300, 5000, POSITION_MAP.itemsMax + 1000);

const scenario = universes.chain((universe) =>
  fc.record({
    universe: fc.constant(universe),
    postings: fc.tuple(...WORDS.map(() => posting(universe))),
    present: fc.subarray([...WORDS.keys()], { minLength: 1 }),
    weights: fc.array(fc.oneof(fc.constant(1), fc.double({ min: 0, max: 4, noNaN: true })), { minLength: WORDS.length, maxLength: WORDS.length }),
    extra: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: universe - 1 }), { maxLength: 60 }), { minLength: 2, maxLength: 2 }),
    share: fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })),
    maxBytes: fc.integer({ min: 113, max: 700 }),
    sub: fc.integer({ min: 1, max: 16 }),
    format2: fc.boolean(),
    avgLength: fc.oneof(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0.5, max: 500, noNaN: true })),
    params: bm25Params,
  }),
);

function blocksOf(postings: readonly WordPosting[], present: readonly number[], maxBytes: number, sub: number, format2: boolean) {
  const blocks = new Map<string, PostingBlock[]>();
  for (const j of present) {
    const b = blockWordPosting(postings[j] as WordPosting, maxBytes, sub);
    // Format 2: the same slices without skip data (a round published before index format 3).
    blocks.set(wordKey(WORDS[j] as string), format2 ? b.map((x) => ({ ...x, data: encodeWordPosting(decodeWordBlock(x.data)) })) : b);
  }
  return blocks;
}

describe("scores from word blocks", () => {
  it("are scoreCandidates' over the joined postings bit for bit, call after call, inside the position map and past it, with kept terms or without (property)", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const blocks = blocksOf(s.postings, s.present, s.maxBytes, s.sub, s.format2);
        const joined = new Map(s.present.map((j) => [WORDS[j] as string, s.postings[j] as WordPosting]));
        const plan = { keywords: [], words: [...WORDS], weights: s.weights };
        const stats = { itemCount: s.universe, avgLength: s.avgLength };
        // One cache keeps every block it is offered, another only half of them (the rest are read in place).
        const kept = mapCache();
        const half = mapCache((key) => Number(key.slice(key.indexOf("@") + 1)) % 2 === 0);
        // Two candidate sets in turn, each a share of the postings' items and items no word holds: the map left by
        // the first must not leak into the second.
        for (let t = 0; t < 2; t++) {
          const share = s.share[t] as number;
          const held = s.postings.flatMap((p) => [...p.items].filter((_, j) => (j * 7919) % 100 < share * 100));
          // Past the position map, a candidate at its far end every time (the merge path must run).
          const far = s.universe > POSITION_MAP.itemsMax ? [s.universe - 1] : [];
          const candidates = Uint32Array.from(new Set([...held, ...(s.extra[t] as number[]), ...far])).sort();
          // Each set under the scenario's BM25 parameters, then under BM25's defaults: the kept terms of the first
          // parameters must not be used for the second.
          for (const params of [s.params, BM25_DEFAULTS]) {
            const want = scoreCandidates(candidates, plan.words, joined, stats, params, plan.weights);
            for (const got of [
              scoreFromBlocks(candidates, plan, blocks, stats, params),
              scoreFromBlocks(candidates, plan, blocks, stats, params, kept),
              scoreFromBlocks(candidates, plan, blocks, stats, params, half),
            ]) {
              expect(got.length).toBe(candidates.length);
              for (let c = 0; c < candidates.length; c++) expect(Object.is(got[c], want[c]), `candidate ${candidates[c]}: ${got[c]} ≠ ${want[c]}`).toBe(true);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("refuse a block whose entries stop short of its end or run past it", () => {
    const p: WordPosting = { items: Uint32Array.of(1, 5, 9), tfs: Uint32Array.of(1, 2, 1), lengths: Uint32Array.of(3, 4, 300) };
    const [block] = blockWordPosting(p, 4096, 2) as [PostingBlock];
    const plan = { keywords: [], words: ["chair"] };
    const stats = { itemCount: 10, avgLength: 3 };
    const candidates = Uint32Array.of(1, 9);
    expect([...scoreFromBlocks(candidates, plan, new Map([[wordKey("chair"), [block]]]), stats)]).toEqual([
      ...scoreCandidates(candidates, ["chair"], new Map([["chair", p]]), stats),
    ]);
    const longer = { ...block, data: Uint8Array.from([...block.data, 0]) };
    expect(() => scoreFromBlocks(candidates, plan, new Map([[wordKey("chair"), [longer]]]), stats)).toThrow(RangeError);
    // Cut inside the last entry's two-byte length (300).
    const shorter = { ...block, data: block.data.subarray(0, block.data.length - 1) };
    expect(() => scoreFromBlocks(candidates, plan, new Map([[wordKey("chair"), [shorter]]]), stats)).toThrow(RangeError);
    // The map was cleared after the failures: a later search is scored as if they never ran.
    expect([...scoreFromBlocks(Uint32Array.of(5), plan, new Map([[wordKey("chair"), [block]]]), stats)]).toEqual([
      ...scoreCandidates(Uint32Array.of(5), ["chair"], new Map([["chair", p]]), stats),
    ]);
  });
});

describe("kept block terms", () => {
  const p: WordPosting = { items: Uint32Array.of(1, 5, 9, 12), tfs: Uint32Array.of(1, 2, 1, 9), lengths: Uint32Array.of(3, 4, 300, 2) };
  // Two blocks: each half blocked alone.
  const half = (from: number, to: number): WordPosting => ({
    items: p.items.subarray(from, to),
    tfs: p.tfs.subarray(from, to),
    lengths: p.lengths.subarray(from, to),
  });
  const blocks = new Map([[wordKey("chair"), [...blockWordPosting(half(0, 2)), ...blockWordPosting(half(2, 4))]]]);
  const plan = { keywords: [], words: ["chair"], weights: [3] };
  const candidates = Uint32Array.of(5, 9, 12);
  const want = (stats: { itemCount: number; avgLength: number }, params: Bm25Params = BM25_DEFAULTS) => [
    ...scoreCandidates(candidates, plan.words, new Map([["chair", p]]), stats, params, plan.weights),
  ];

  it("are made once per block, by word and first ordinal, and read on later searches", () => {
    const cache = mapCache();
    const stats = { itemCount: 20, avgLength: 3 };
    expect([...scoreFromBlocks(candidates, plan, blocks, stats, BM25_DEFAULTS, cache)]).toEqual(want(stats));
    expect(cache.sets).toBe(2);
    const [first, second] = blocks.get(wordKey("chair")) as [PostingBlock, PostingBlock];
    expect([...cache.map.keys()]).toEqual([blockTermsKey(wordKey("chair"), first), blockTermsKey(wordKey("chair"), second)]);
    expect([...(cache.map.get(blockTermsKey(wordKey("chair"), first))?.items ?? [])]).toEqual([1, 5]);
    expect([...scoreFromBlocks(candidates, plan, blocks, stats, BM25_DEFAULTS, cache)]).toEqual(want(stats));
    expect(cache.sets).toBe(2);
  });

  it("are made again for other BM25 parameters, another idf (item count) or another avgdl, never reused", () => {
    const cache = mapCache();
    const stats = { itemCount: 20, avgLength: 3 };
    scoreFromBlocks(candidates, plan, blocks, stats, BM25_DEFAULTS, cache);
    const other = { k1: 0.9, b: 0.4 };
    expect([...scoreFromBlocks(candidates, plan, blocks, stats, other, cache)]).toEqual(want(stats, other));
    expect(cache.sets).toBe(4);
    const more = { itemCount: 40, avgLength: 3 };
    expect([...scoreFromBlocks(candidates, plan, blocks, more, BM25_DEFAULTS, cache)]).toEqual(want(more));
    expect(cache.sets).toBe(6);
    const longer = { itemCount: 40, avgLength: 7.5 };
    expect([...scoreFromBlocks(candidates, plan, blocks, longer, BM25_DEFAULTS, cache)]).toEqual(want(longer));
    expect(cache.sets).toBe(8);
  });

  it("are not made for a block the cache does not admit: it is read in place", () => {
    const cache = mapCache(() => false);
    const stats = { itemCount: 20, avgLength: 3 };
    expect([...scoreFromBlocks(candidates, plan, blocks, stats, BM25_DEFAULTS, cache)]).toEqual(want(stats));
    expect(cache.sets).toBe(0);
  });
});
