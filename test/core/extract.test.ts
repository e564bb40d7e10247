import { describe, expect, it } from "vitest";
import { extractKeywords, itemSegments, ngramDocumentFrequencies, segmentNgrams } from "../../core/extract.js";
import { loadQueryGenerator, QUERY_GENERATOR_FORMAT, validateQueryGeneratorSpec } from "../../core/query-generator.js";

describe("round-0 extractor", () => {
  it("builds n-grams inside segments, without stop-word edges or bare numbers", () => {
    expect(segmentNgrams(["chair", "with", "arms"], 3)).toEqual(["chair", "arms", "chair with arms"]);
    expect(segmentNgrams(["2", "seat", "sofa"], 2)).toEqual(["seat", "sofa", "seat sofa"]);
  });

  it("keeps at most M keywords that other items share, deterministically", () => {
    const items = [
      { name: "oak dining table", class: "Dining Tables", category: "Furniture / Tables / Dining Tables" },
      { name: "pine dining table", class: "Dining Tables", category: "Furniture / Tables / Dining Tables" },
      { name: "velvet accent chair", class: "Accent Chairs", description: "a soft chair. velvet." },
      { name: "linen accent chair", class: "Accent Chairs" },
    ];
    const segs = items.map(itemSegments);
    const df = ngramDocumentFrequencies(segs, 3);
    const kw = extractKeywords(segs[0] ?? [], df, items.length, { maxKeywords: 3 });
    expect(kw).toHaveLength(3);
    expect(kw).toContain("dining tables");
    expect(kw).not.toContain("oak"); // df 1: shared with no other item
    expect(extractKeywords(segs[0] ?? [], df, items.length, { maxKeywords: 3 })).toEqual(kw);
  });

  it("ships as a versioned query generator", () => {
    const spec = {
      format: QUERY_GENERATOR_FORMAT,
      version: 1,
      kind: "extractor" as const,
      maxKeywords: 10,
      maxNgram: 3,
      itemCount: 10,
      df: [
        ["accent chair", 2],
        ["chair", 5],
      ] as Array<[string, number]>,
    };
    const gen = loadQueryGenerator(validateQueryGeneratorSpec(spec));
    expect(gen?.("Velvet Accent-Chair")).toEqual(["accent chair", "chair"]);
    expect(() => validateQueryGeneratorSpec({ ...spec, version: 2 })).toThrow(/unsupported/);
    expect(() => validateQueryGeneratorSpec({ ...spec, kind: "oracle" })).toThrow(/unknown query generator kind/);
  });
});
