/** workers/search/store/block-terms.ts: the isolate's kept block terms, their budget and their admission. */
import { describe, expect, it } from "vitest";
import type { BlockTerms } from "../../core/score-blocks.js";
import { SERVING_LIMITS } from "../../workers/search/limits.js";
import { blockTermsLru } from "../../workers/search/middleware/services.js";
import { KeptBlockTerms } from "../../workers/search/store/block-terms.js";

const terms = (n: number): BlockTerms => ({ items: new Uint32Array(n), terms: new Float64Array(n), idf: 1, avgLength: 3, k1: 1.2, b: 0.75 });
const ROUND = { round: 1, contentHash: "h1" };

/** One search's worth of lookups as core makes them: get, and on a miss, admit and keep. Returns whether it was kept before. */
function lookUp(cache: ReturnType<KeptBlockTerms["forRound"]>, key: string, entries: number): boolean {
  if (cache.get(key)) return true;
  if (cache.admits(key, entries)) cache.set(key, terms(entries));
  return false;
}

describe("kept block terms", () => {
  it("keep to their budget (12 bytes an entry, the key and the object) and serve with the serving budget", () => {
    const kept = new KeptBlockTerms(10_000);
    const cache = kept.forRound(ROUND);
    for (let j = 0; j < 200; j++) {
      lookUp(cache, `w:word${j}@0`, 10 + ((j * 37) % 200));
      expect(kept.bytes).toBeLessThanOrEqual(10_000);
    }
    const one = new KeptBlockTerms(10_000);
    one.forRound(ROUND).set("w:a@0", terms(100));
    expect(one.bytes).toBe("1:h1:w:a@0".length * 2 + 100 * 12 + 96);
    expect(one.forRound(ROUND).admits("w:huge@0", 1_000)).toBe(false);
    expect(blockTermsLru.budgetBytes).toBe(SERVING_LIMITS.blockTermsLruBytes);
  });

  it("are a round's own: another round or content hash never reads them", () => {
    const kept = new KeptBlockTerms(10_000);
    kept.forRound(ROUND).set("w:chair@0", terms(4));
    expect(kept.forRound(ROUND).get("w:chair@0")?.items.length).toBe(4);
    expect(kept.forRound({ round: 2, contentHash: "h1" }).get("w:chair@0")).toBeUndefined();
    expect(kept.forRound({ round: 1, contentHash: "h2" }).get("w:chair@0")).toBeUndefined();
  });

  it("let a block in while there is room, and once full only one asked for more than twice as often as the oldest", () => {
    const kept = new KeptBlockTerms(3 * ("1:h1:w:a@0".length * 2 + 10 * 12 + 96));
    const cache = kept.forRound(ROUND);
    for (const k of ["w:a@0", "w:b@0", "w:c@0"]) expect(lookUp(cache, k, 10)).toBe(false);
    expect(kept.size).toBe(3);
    // Full: a newcomer asked for once is read in place, and what was kept stays.
    expect(lookUp(cache, "w:d@0", 10)).toBe(false);
    expect(kept.size).toBe(3);
    expect(cache.get("w:d@0")).toBeUndefined();
    // Asked for often, it displaces the least recently used (a, asked for once, then twice by the check below).
    for (let j = 0; j < 6; j++) lookUp(cache, "w:d@0", 10);
    expect(cache.get("w:d@0")).toBeDefined();
    expect(kept.size).toBe(3);
  });

  it("settle under a working set larger than the budget instead of replacing what each search kept", () => {
    const entry = "1:h1:w:k00@0".length * 2 + 50 * 12 + 96;
    const kept = new KeptBlockTerms(10 * entry);
    const cache = kept.forRound(ROUND);
    const keys = Array.from({ length: 25 }, (_, j) => `w:k${String(j).padStart(2, "0")}@0`);
    const admittedPerCycle: number[] = [];
    for (let cycle = 0; cycle < 8; cycle++) {
      const before = kept.admitted;
      for (const k of keys) lookUp(cache, k, 50);
      admittedPerCycle.push(kept.admitted - before);
    }
    // The first cycle fills the room; after that, blocks asked for equally often leave what is kept alone.
    expect(admittedPerCycle[0]).toBe(10);
    expect(admittedPerCycle.slice(2)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(kept.size).toBe(10);
  });

  it("age their counts, so a new round's blocks displace an old round's", () => {
    const kept = new KeptBlockTerms("1:h1:w:old@0".length * 2 + 10 * 12 + 96);
    const old = kept.forRound(ROUND);
    for (let j = 0; j < 40; j++) lookUp(old, "w:old@0", 10);
    const next = kept.forRound({ round: 2, contentHash: "h2" });
    // Asked for more than twice as often as the old block, counts halved along the way, it takes the room.
    for (let j = 0; j < 200 && !next.get("w:new@0"); j++) lookUp(next, "w:new@0", 10);
    expect(next.get("w:new@0")).toBeDefined();
    expect(old.get("w:old@0")).toBeUndefined();
  });
});
