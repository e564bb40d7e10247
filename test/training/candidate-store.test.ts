/**
 * The phase's candidate store (training/candidate-store.ts): packed into a
 * file, every candidate reads back bit for bit as built (keyword, df, every
 * feature), the same as the in-memory store holds it.
 */
import { describe, expect, it } from "vitest";
import type { Candidate } from "../../core/policy-candidates.js";
import { FEATURE_COUNT } from "../../core/policy-features.js";
import { Rng } from "../../core/rng.js";
import { buildCandidateStore, openCandidateFile } from "../../training/candidate-store.js";

function build(j: number): Candidate[] {
  const rng = new Rng(j + 1);
  return Array.from({ length: j % 9 }, (_, c) => {
    const features = Array.from({ length: FEATURE_COUNT }, () => {
      const r = rng.next();
      return r < 0.6 ? 0 : r < 0.8 ? 1 : rng.next() * 3 - 1;
    });
    return { keyword: `${["chaise", "café", "sofá 🛋", "x"][c % 4]} ${j}-${c}`, features, df: Math.floor(rng.next() * 1e6) };
  });
}

describe("candidate store", () => {
  it("reads a packed file back exactly as built, as the in-memory store does", () => {
    const n = 300;
    const memory = buildCandidateStore(n, build, 1e9);
    const file = buildCandidateStore(n, build, 0);
    expect(memory.file).toBeUndefined();
    expect(file.file?.path).toMatch(/candidates\.bin$/);
    const other = openCandidateFile(file.file as NonNullable<typeof file.file>);
    let seen = 0;
    for (let j = 0; j < n; j++) {
      const want = build(j).map((c) => ({ keyword: c.keyword, features: c.features, df: c.df }));
      expect(memory.get(j)).toEqual(build(j));
      expect(file.get(j)).toEqual(want);
      expect(other.get(j)).toEqual(want);
      expect(file.size(j)).toBe(want.length);
      seen += want.length;
    }
    expect(seen).toBeGreaterThan(1000);
    other.close();
    file.close();
  });
});
