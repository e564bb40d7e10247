import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildColumns, categorySegments, encodeChunk, joinChunks, parseColumnsMeta } from "../../core/columns.js";
import { compileFilters, countFacet, FilterError, type FilterRequest, facetColumn, filterPredicate, parseRange, splitValues } from "../../core/filters.js";
import { KeywordIndex } from "../../core/inverted-index.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { planQuery } from "../../core/retrieve.js";

const CLASSES = ["Accent Chairs", "Sofas", "Desks", ""];
const CATEGORIES = ["Furniture / Living Room Furniture / Chairs & Seating", "Furniture / Living Room Furniture", "Furniture / Office Furniture", "Décor", ""];
const VOCAB = ["chair", "arm chair", "red", "sofa", "desk", "oak desk"];

const item = fc.record({
  name: fc.constantFrom("alpha chair", "beta sofa", "gamma desk", "delta"),
  class: fc.constantFrom(...CLASSES),
  category: fc.constantFrom(...CATEGORIES),
  keywords: fc.subarray(VOCAB, { maxLength: 3 }),
  rating: fc.constantFrom("1", "2.5", "4", "4.5", "5", ""),
});
const catalogue = fc.array(item, { minLength: 1, maxLength: 40 });
const asItems = (raw: Array<{ name: string; class: string; category: string; keywords: string[]; rating: string }>) =>
  raw.map((r, j) => ({
    id: String(j),
    name: r.name,
    class: r.class,
    category: r.category,
    keywords: r.keywords,
    facets: (r.rating ? { rating: r.rating } : {}) as Record<string, string>,
  }));

const filterArb = fc.subarray<FilterRequest>(
  [
    { parameter: "class", field: "class", raw: "accent chairs,Desks" },
    { parameter: "category", field: "category", raw: "Furniture/Living Room Furniture" },
    { parameter: "category", field: "category", raw: "furniture" },
    { parameter: "filter[rating]", field: "rating", raw: "4.." },
    { parameter: "filter[rating]", field: "rating", raw: "..2.5" },
  ],
  { maxLength: 3 },
);

/** Brute force of one filter over an item, straight from the spelling rules. */
function passes(it: ReturnType<typeof asItems>[number], r: FilterRequest): boolean {
  const range = parseRange(r.raw);
  if (range) {
    const v = it.facets.rating;
    return v !== undefined && Number(v) >= range.min && Number(v) <= range.max;
  }
  const values = splitValues(r.raw);
  if (r.field === "class") return values.some((v) => normalizeKeyword(v) === normalizeKeyword(it.class) && it.class !== "");
  const segs = categorySegments(it.category).map(normalizeKeyword);
  return values.some((v) => {
    const want = categorySegments(v).map(normalizeKeyword);
    return want.length <= segs.length && want.every((w, j) => w === segs[j]);
  });
}

describe("facet columns (core/columns.ts)", () => {
  it("hold class, each category level and the import's fields, with sorted dictionaries", () => {
    const { meta, codes } = buildColumns(
      asItems([
        { name: "a", class: "Sofas", category: "Furniture / Living Room Furniture", keywords: [], rating: "4.5" },
        { name: "b", class: "Accent Chairs", category: "Furniture", keywords: [], rating: "10" },
        { name: "c", class: "", category: "", keywords: [], rating: "" },
      ]),
    );
    expect(meta.columns.map((c) => c.name)).toEqual(["category.lvl0", "category.lvl1", "class", "rating"]);
    const cls = meta.columns.find((c) => c.name === "class");
    expect(cls?.values).toEqual(["Accent Chairs", "Sofas"]);
    expect([...(codes.get("class") ?? [])]).toEqual([2, 1, 0]);
    expect([...(codes.get("category.lvl1") ?? [])]).toEqual([1, 0, 0]);
    const rating = meta.columns.find((c) => c.name === "rating");
    expect(rating?.numeric).toBe(true);
    expect(rating?.values).toEqual(["4.5", "10"]);
  });

  it("survive the chunked encoding and the versioned meta", () => {
    fc.assert(
      fc.property(catalogue, fc.integer({ min: 1, max: 7 }), (raw, chunkItems) => {
        const { meta, codes } = buildColumns(asItems(raw), chunkItems);
        const back = parseColumnsMeta(JSON.stringify(meta));
        for (const col of back.columns) {
          const c = codes.get(col.name);
          if (!c) throw new Error(`no codes for ${col.name}`);
          const chunks = Array.from({ length: Math.ceil(meta.itemCount / chunkItems) }, (_, j) => encodeChunk(c, j, chunkItems));
          expect([...joinChunks(back, col, chunks)]).toEqual([...c]);
        }
      }),
    );
    expect(() => parseColumnsMeta(JSON.stringify({ format: "cogr-columns", version: 99, itemCount: 0, chunkItems: 1, columns: [] }))).toThrow(/version 99/);
  });
});

describe("filters and facets (core/filters.ts)", () => {
  it("filtering then executing equals executing then filtering, and facet counts equal brute force over the filtered I_ret(q)", () => {
    fc.assert(
      fc.property(catalogue, fc.subarray(VOCAB, { maxLength: 3 }), fc.constantFrom("chair", "desk", "sofa"), filterArb, (raw, generated, q, reqs) => {
        // The last item is never retrieved; it gives every catalogue a rating column to filter on.
        const items = asItems([...raw, { name: "zzz", class: "", category: "", keywords: [], rating: "3" }]);
        const index = KeywordIndex.build(items);
        const { meta, codes } = buildColumns(items);
        const keep = filterPredicate(compileFilters(meta, reqs), codes);
        const plan = planQuery(generated, q);
        const filtered = index.search(plan, { filter: keep, keepRetrieved: true });
        const whole = index.search(plan);
        const expected = whole.hits.filter((h) => reqs.every((r) => passes(items[h.item] as (typeof items)[number], r)));
        expect(filtered.hits).toEqual(expected);
        expect(filtered.total).toBe(expected.length);
        expect([...(filtered.retrieved ?? [])]).toEqual(expected.map((h) => h.item).sort((a, b) => a - b));
        const facet = countFacet(meta, "class", codes.get("class"), filtered.retrieved ?? new Uint32Array());
        const brute = new Map<string, number>();
        for (const h of expected) {
          const c = (items[h.item] as (typeof items)[number]).class;
          if (c !== "") brute.set(c, (brute.get(c) ?? 0) + 1);
        }
        const want = [...brute].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
        expect(facet).toEqual(want);
      }),
    );
  });

  it("keeps the related tail filtered too", () => {
    const items = asItems([
      { name: "red chair", class: "Sofas", category: "", keywords: ["chair"], rating: "" },
      { name: "red lamp", class: "Sofas", category: "", keywords: [], rating: "" },
      { name: "red desk", class: "Desks", category: "", keywords: [], rating: "" },
    ]);
    const index = KeywordIndex.build(items);
    const { meta, codes } = buildColumns(items);
    const keep = filterPredicate(compileFilters(meta, [{ parameter: "class", field: "class", raw: "sofas" }]), codes);
    const page = index.search(planQuery(["chair", "red"], "red chair"), { filter: keep, related: true });
    expect(page.total).toBe(1);
    expect(page.hits.map((h) => [h.item, h.related === true])).toEqual([
      [0, false],
      [1, true],
    ]);
    expect(page.related).toBe(1);
  });

  it("refuses an unknown field, a range on a text field, an empty range and a non-number on a numeric field, naming the parameter", () => {
    const { meta } = buildColumns(asItems([{ name: "a", class: "Sofas", category: "A / B", keywords: [], rating: "4" }]));
    const err = (r: FilterRequest) => {
      try {
        compileFilters(meta, [r]);
      } catch (e) {
        return e instanceof FilterError ? `${e.parameter}: ${e.message}` : `other: ${String(e)}`;
      }
      return "no error";
    };
    expect(err({ parameter: "filter[color]", field: "color", raw: "red" })).toMatch(/^filter\[color\]: .*no field "color"/);
    expect(err({ parameter: "class", field: "class", raw: "1..2" })).toMatch(/^class: .*not a numeric field/);
    expect(err({ parameter: "filter[rating]", field: "rating", raw: "5..4" })).toMatch(/empty/);
    expect(err({ parameter: "filter[rating]", field: "rating", raw: "high" })).toMatch(/not a number/);
    expect(err({ parameter: "filter[rating]", field: "rating", raw: "1..2..3" })).toMatch(/not a range/);
    expect(err({ parameter: "class", field: "class", raw: " , " })).toMatch(/names no value/);
    expect(err({ parameter: "class", field: "class", raw: "No Such Class" })).toBe("no error");
  });

  it("splits lists at unescaped commas and facets the category level below the one filtered", () => {
    expect(splitValues("a, b\\,c ,,d\\\\")).toEqual(["a", "b,c", "d\\"]);
    const { meta } = buildColumns(asItems([{ name: "a", class: "S", category: "A / B / C", keywords: [], rating: "" }]));
    expect(facetColumn(meta, "category", [])).toBe("category.lvl0");
    expect(facetColumn(meta, "category", [{ parameter: "category", field: "category", raw: "A/B" }])).toBe("category.lvl2");
    expect(() => facetColumn(meta, "colour", [])).toThrow(FilterError);
  });
});
