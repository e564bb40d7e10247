import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundedDistance } from "../../core/edit-distance.js";
import { queryCandidates } from "../../core/policy-candidates.js";
import { F } from "../../core/policy-features.js";
import {
  extractorCorrection,
  extractorGenerator,
  extractorSpec,
  extractorTailTerms,
  loadQueryCorrector,
  loadQueryGenerator,
  QUERY_GENERATOR_LIMITS,
  specDf,
  splitExtractorDf,
} from "../../core/query-generator.js";
import { Rng } from "../../core/rng.js";
import { correctQuery, correctWord, edits1, lexiconOf } from "../../core/typos.js";
import { misspellQuery, misspellWord } from "../../training/typos.js";

const DF: Array<[string, number]> = [
  ["armchair", 40],
  ["arm chair", 5],
  ["accent chair", 30],
  ["scone", 2],
  ["stone coaster", 50],
  ["dumbbell", 6],
  ["sofa", 80],
  ["soft", 3],
  ["table", 70],
  ["cable", 1],
];
const lex = lexiconOf(DF);

describe("spelling correction (core/typos.ts)", () => {
  it("mends each of the four one-edit typos, and leaves known, short and numeric words alone", () => {
    expect(correctQuery(lex, "Armchiar")).toEqual({ text: "armchair", words: [["armchiar", "armchair"]] });
    expect(correctWord(lex, "armchar")).toBe("armchair");
    expect(correctWord(lex, "armchairr")).toBe("armchair");
    expect(correctWord(lex, "armchsir")).toBe("armchair");
    // "scone" is a word of the vocabulary, however much heavier "stone" is.
    expect(correctWord(lex, "scone")).toBeNull();
    expect(correctWord(lex, "armchairs")).toBeNull(); // its singular is known
    expect(correctWord(lex, "sfa")).toBeNull(); // under 4 letters
    expect(correctWord(lex, "tabl3")).toBeNull(); // a digit: a model number, not a typo
    expect(correctWord(lex, "xylophone")).toBeNull(); // nothing one edit away
    expect(correctQuery(lex, "stone sofa")).toBeNull();
  });

  it("prefers the word more items hold, and tries the singular of a plural", () => {
    expect(correctWord(lex, "sofz")).toBe("sofa"); // sofa (80) over soft (3)
    expect(correctWord(lex, "xable")).toBe("table"); // table (70) over cable (1)
    expect(correctWord(lex, "dumbbwlls")).toBe("dumbbell");
    expect(correctWord(lex, "stome", (w) => w === "stome")).toBeNull(); // a word the caller vouches for (a df tail)
  });

  it("finds exactly the vocabulary words at distance 1 (edits1 against brute force)", () => {
    const words = [...lex.weight.keys()];
    const typed = fc.string({ unit: fc.constantFrom(..."abcdehilmnorstz"), minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(typed, (w) => {
        const brute = words.filter((x) => boundedDistance(w, x, 1) === 1).sort();
        expect(edits1(lex, w).sort()).toEqual(brute);
      }),
    );
  });

  it("a seeded misspelling is one edit from the word, and the corrector mends it when no other word is as close", () => {
    const rng = new Rng(3);
    for (let k = 0; k < 200; k++) {
      const typo = misspellWord("armchair", rng);
      expect(boundedDistance(typo, "armchair", 1)).toBe(1);
      expect(correctWord(lex, typo)).toBe("armchair");
    }
    expect(misspellQuery("a rug", new Rng(1))).toBeNull(); // no word of 4+ letters
    expect(misspellQuery("velvet sofa", new Rng(1))).not.toBe("velvet sofa");
  });

  it("a query policy's candidates come from the corrected query and say so; verbatim turns it off", () => {
    const vocab = { oppositeDf: new Map(DF), oppositeCount: 200, expansions: new Map() };
    const typo = queryCandidates(vocab, "armchiar");
    const fixed = typo.find((c) => c.keyword === "armchair");
    expect(fixed?.features[F.corrected]).toBe(1);
    expect(queryCandidates(vocab, "armchair").find((c) => c.keyword === "armchair")?.features[F.corrected]).toBe(0);
    expect(queryCandidates(vocab, "armchiar", undefined, true).map((c) => c.keyword)).not.toContain("armchair");
  });

  it("an extractor held whole corrects as its served head and df tail do (past the head's size)", () => {
    // The head's keywords, "dipper" among them; "zipper" is spelled only by a tail keyword (the rarest).
    const df = new Map<string, number>(Array.from({ length: QUERY_GENERATOR_LIMITS.headKeywords - 2 }, (_, j) => [`k${j} chair`, 10]));
    df.set("dipper", 50);
    df.set("zipper closure", 1);
    df.set("closet", 40);
    const whole = extractorSpec(df, 100_000);
    const { head, tail } = splitExtractorDf(whole);
    expect(head.tail?.keywords).toBe(1);
    const headMap = new Map(head.df);
    const tailMap = new Map(tail);
    // The worker: the head, and the tail entries of the query's n-grams the head lacks (workers/search/query-df.ts).
    const served = (q: string) => {
      const fetched = new Map(extractorTailTerms(head, headMap, q).flatMap((t) => (tailMap.has(t) ? [[t, tailMap.get(t) as number] as const] : [])));
      return { keywords: extractorGenerator(head, headMap)(q, fetched), corrected: extractorCorrection(headMap, q, fetched)?.text ?? null };
    };
    const generate = loadQueryGenerator(whole) as (q: string) => string[];
    const correct = loadQueryCorrector(whole);
    for (const q of ["closet zipper", "zipper closure", "closet dippr", "k7 chiar"]) {
      expect({ keywords: generate(q), corrected: correct(q)?.text ?? null }, q).toEqual(served(q));
    }
    expect(correct("zipper closure")).toBeNull(); // a tail n-gram of the query vouches for "zipper"
    expect(correct("closet zipper")?.text).toBe("closet dipper"); // no n-gram does: the documented limit, on both sides alike
  });

  it("a loaded extractor's generator and corrector share one df map (so one lexicon), made once per spec", () => {
    const spec = extractorSpec(new Map(DF), 100);
    const map = specDf(spec);
    expect(specDf(spec)).toBe(map);
    expect(specDf(extractorSpec(new Map(DF), 100))).not.toBe(map);
    expect([...map]).toEqual(spec.df.map(([k, d]) => [k, d]));
    expect(loadQueryCorrector(spec)("armchiar")?.text).toBe("armchair");
    expect((loadQueryGenerator(spec) as (q: string) => string[])("armchiar")).toContain("armchair");
  });
});
