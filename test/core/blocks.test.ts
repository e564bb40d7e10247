import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  blockKeywordPosting,
  blocksHolding,
  blockWordPosting,
  joinKeywordBlocks,
  joinWordBlocks,
  packBlocks,
  postingsFromBlocks,
  unpackBlocks,
} from "../../core/blocks.js";
import { KeywordIndex } from "../../core/inverted-index.js";
import { executeQuery, planQuery } from "../../core/retrieve.js";
import { keywordKey, wordKey } from "../../core/shard.js";
import { ascendingItems, wordPostings } from "../support/arbitraries.js";

const ascending = ascendingItems(400);
const blockBytes = fc.integer({ min: 18, max: 200 });
/** A word block holds its sub-block table besides its entries (core/word-blocks.ts): at least 113 bytes. */
const wordBlockBytes = fc.integer({ min: 113, max: 400 });

describe("posting blocks", () => {
  it("split a keyword posting into blocks within the byte bound that join back exactly, with true skip data", () => {
    fc.assert(
      fc.property(ascending, blockBytes, (items, max) => {
        const blocks = blockKeywordPosting(items, max);
        expect(joinKeywordBlocks(blocks)).toEqual(items);
        let at = 0;
        for (const b of blocks) {
          expect(b.data.length).toBeLessThanOrEqual(max);
          expect([b.first, b.last, b.count]).toEqual([items[at], items[at + b.count - 1], b.count]);
          at += b.count;
        }
        expect(unpackBlocks(packBlocks(blocks))).toEqual(blocks);
      }),
    );
  });

  it("split a word posting the same way, tf and length kept", () => {
    fc.assert(
      fc.property(wordPostings(400), wordBlockBytes, (p, max) => {
        const blocks = blockWordPosting(p, max);
        for (const b of blocks) expect(b.data.length).toBeLessThanOrEqual(max);
        expect(joinWordBlocks(blocks)).toEqual({ ...p, df: p.items.length });
      }),
    );
  });

  it("keeps exactly the blocks whose range holds a candidate", () => {
    fc.assert(
      fc.property(ascending, ascending, blockBytes, (items, candidates, max) => {
        const blocks = blockKeywordPosting(items, max);
        const kept = new Set(blocksHolding(blocks, candidates));
        for (const b of blocks) expect(kept.has(b)).toBe(candidates.some((c) => c >= b.first && c <= b.last));
      }),
    );
  });

  it("refuse a truncated block list", () => {
    const packed = packBlocks(blockKeywordPosting(Uint32Array.from([1, 5, 9, 200, 7000]), 20));
    expect(() => unpackBlocks(packed.subarray(0, packed.length - 1))).toThrow(/truncated/);
  });
});

const VOCAB = ["chair", "arm chair", "red", "red chair", "table", "oak table", "lamp", "desk lamp", "sofa", "wood", "gray sofa", "bed"];

describe("retrieval over blocked postings", () => {
  it("gives byte-identical pages to the unblocked index, with skipped word blocks left undecoded", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.constantFrom("alpha", "beta chair", "gamma table", "red chair", "gray sofa"), keywords: fc.subarray(VOCAB) }), {
          minLength: 1,
          maxLength: 120,
        }),
        fc.subarray(VOCAB, { maxLength: 4 }),
        fc.constantFrom("", "red", "wood table", "sofa"),
        wordBlockBytes,
        fc.integer({ min: 1, max: 30 }),
        (rows, generated, raw, max, limit) => {
          const index = KeywordIndex.build(rows.map((r, j) => ({ id: String(j), ...r })));
          const plan = planQuery(generated, raw);
          const blocks = new Map<string, ReturnType<typeof blockKeywordPosting>>();
          for (const k of plan.keywords) {
            const p = index.keywordPostings.get(k);
            if (p) blocks.set(keywordKey(k), blockKeywordPosting(p, max));
          }
          for (const w of plan.words) {
            const p = index.wordPostings.get(w);
            if (p) blocks.set(wordKey(w), blockWordPosting(p, max));
          }
          const page = executeQuery(plan, postingsFromBlocks(plan, blocks), index, { limit });
          expect(page).toEqual(index.search(plan, { limit }));
          // Pages reaching into the related tail decode the word postings whole, and still agree.
          for (const offset of [0, Math.max(0, page.total - 2), page.total + 1]) {
            const opts = { limit, offset, related: true };
            expect(executeQuery(plan, postingsFromBlocks(plan, blocks, offset + limit), index, opts)).toEqual(index.search(plan, opts));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
