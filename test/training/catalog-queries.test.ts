/**
 * Pseudo-queries and their graded pseudo-relevance, on a small hand-built
 * catalogue (training/supervision/catalog-*.ts): product types from class,
 * category leaf and name; attributes from features and names; brands; Exact
 * and Partial grades; determinism for a seed; budgets.
 */
import { describe, expect, it } from "vitest";
import type { Product } from "../../training/data/wands.js";
import { attributeValues, catalogFacts, kindOfKey, typePhrases } from "../../training/supervision/catalog-facts.js";
import { PSEUDO_QUERY_BUDGETS, type PseudoQueryBudgets, pseudoQueries } from "../../training/supervision/catalog-queries.js";
import { gradeIntent, relevanceIndex } from "../../training/supervision/catalog-relevance.js";

const product = (id: number, name: string, cls: string, features: Array<[string, string]>, category = ""): Product => ({
  id: String(id),
  name,
  class: cls,
  category,
  description: "",
  features,
});

// Sofas, coffee tables, rugs and kids beds; brands lead the names that have one.
const CATALOG: Product[] = [
  product(0, "alder gray velvet sofa", "Sofas", [
    ["color", "gray"],
    ["upholsterymaterial", "velvet"],
    ["style", "modern & contemporary"],
  ]),
  product(1, "birch blue velvet sofa", "Sofas", [
    ["color", "blue"],
    ["upholsterymaterial", "velvet"],
    ["style", "modern"],
  ]),
  product(2, "cedar gray leather sofa", "Sofas", [
    ["color", "gray"],
    ["upholsterymaterial", "leather"],
  ]),
  product(3, "dune blue leather sofa", "Sofas", [
    ["color", "blue"],
    ["upholsterymaterial", "leather"],
    ["style", "modern"],
  ]),
  product(4, "gray linen sofa", "Sofas", [["upholsterymaterial", "velvet"]], "Furniture / Living Room Furniture / Sofas"),
  product(5, "elm oak coffee table", "Coffee & Cocktail Tables", [
    ["color", "brown"],
    ["primarymaterial", "wood"],
    ["materialdetails", "oak veneer"],
  ]),
  product(6, "fir walnut cocktail table", "Coffee & Cocktail Tables", [
    ["color", "brown"],
    ["primarymaterial", "wood"],
  ]),
  product(7, "glass coffee table", "Coffee & Cocktail Tables", [
    ["color", "clear"],
    ["primarymaterial", "glass"],
  ]),
  product(8, "hazel coffee table set", "Living Room Table Sets", [
    ["color", "brown"],
    ["primarymaterial", "wood"],
  ]),
  product(9, "gray wool area rug", "Area Rugs", [
    ["color", "gray"],
    ["material", "wool"],
    ["theme", "no theme"],
  ]),
  product(10, "blue wool area rug", "Area Rugs", [
    ["color", "blue"],
    ["material", "wool"],
  ]),
  product(11, "iris brown area rug", "Area Rugs", [
    ["color", "brown"],
    ["material", "jute"],
  ]),
  product(
    12,
    "juniper twin kids bed",
    "Kids Beds",
    [
      ["mattresssize", "twin"],
      ["lifestage", "kid"],
      ["primarymaterial", "wood"],
    ],
    "Baby & Kids / Kids Beds",
  ),
  product(
    13,
    "kauri twin kids bed",
    "Kids Beds",
    [
      ["mattresssize", "twin"],
      ["lifestage", "kid"],
      ["color", "blue"],
    ],
    "Baby & Kids / Kids Beds",
  ),
  product(
    14,
    "larch full kids bed",
    "Kids Beds",
    [
      ["mattresssize", "full / double"],
      ["lifestage", "kid"],
    ],
    "Baby & Kids / Kids Beds",
  ),
  product(
    15,
    "maple twin kids bed",
    "Kids Beds",
    [
      ["mattresssize", "twin"],
      ["agegroup", "7 to 8 years"],
    ],
    "Baby & Kids / Kids Beds",
  ),
  product(16, "plush sofa", "Sofas", [["upholsterymaterial", "velvet"]]),
];

const SMALL: PseudoQueryBudgets = { ...PSEUDO_QUERY_BUDGETS, queries: 40, minRelevant: 2, maxRelevantFloor: 6, maxPerType: 3, heldOutShare: 0.25 };

describe("catalogue facts", () => {
  it("splits class and category names into product types", () => {
    expect(typePhrases("Coffee & Cocktail Tables")).toEqual([
      ["coffee", "tables"],
      ["cocktail", "tables"],
    ]);
    expect(typePhrases("Curtains & Drapes")).toEqual([["curtains"], ["drapes"]]);
    expect(typePhrases("Kids Beds|Teen Beds")).toEqual([
      ["kids", "beds"],
      ["teen", "beds"],
    ]);
  });

  it("maps feature keys to attribute kinds and keeps only real values", () => {
    expect(kindOfKey("primarymaterial")).toBe("material");
    expect(kindOfKey("Colour")).toBe("colour");
    expect(kindOfKey("mattresssize")).toBe("size");
    expect(kindOfKey("materialdetails")).toBeUndefined();
    expect(kindOfKey("warrantylength")).toBeUndefined();
    expect(attributeValues("modern & contemporary")).toEqual([["modern"], ["contemporary"]]);
    expect(attributeValues("100 % polyester")).toEqual([["polyester"]]);
    expect(attributeValues("no theme")).toEqual([]);
    expect(attributeValues("7 to 8 years")).toEqual([]);
  });

  it("reads types, attributes (features and name) and brands per product", () => {
    const facts = catalogFacts(CATALOG);
    const at = (j: number) => facts.products[j] as (typeof facts.products)[number];
    expect(at(0).types).toContain("sofa");
    expect(at(5).types).toEqual(expect.arrayContaining(["coffee table", "cocktail table"]));
    expect(at(12).types).toContain("kid bed");
    expect(at(0).attributes).toEqual(
      expect.arrayContaining([
        { kind: "colour", value: "gray" },
        { kind: "material", value: "velvet" },
        { kind: "style", value: "modern" },
      ]),
    );
    // Its features say velvet, its name says gray: both count (gray is a colour elsewhere in the catalogue).
    expect(at(4).attributes).toEqual(expect.arrayContaining([{ kind: "colour", value: "gray" }]));
    // "oak veneer" is a materialdetails value (not an attribute key), "no theme" no value, "7 to 8 years" an age, not a word.
    const values = facts.products.flatMap((p) => p.attributes.map((a) => a.value));
    expect(values).not.toContain("oak veneer");
    expect(values).not.toContain("no theme");
    expect(values.some((v) => v.includes("year"))).toBe(false);
    expect(at(0).brand).toBe("alder");
    expect(at(12).brand).toBe("juniper");
    // "gray" leads a name but is a colour, "glass" leads one but is a material: no brand.
    expect(at(9).brand).toBeUndefined();
    expect(at(7).brand).toBeUndefined();
  });
});

describe("graded pseudo-relevance", () => {
  const index = relevanceIndex(catalogFacts(CATALOG));
  const ids = (js: readonly number[]) => js.map((j) => CATALOG[j]?.id);

  it("Exact: the type and every attribute; Partial: the type with an attribute unknown, or one it says otherwise", () => {
    const g = gradeIntent(index, { type: "sofa", attributes: [{ kind: "colour", value: "gray" }] });
    expect(ids(g.exact)).toEqual(["0", "2", "4"]);
    // The plush sofa says no colour; the blue ones say another.
    expect(ids(g.partial)).toEqual(["16"]);
    expect(ids(g.partialDiffers)).toEqual(["1", "3"]);
    const two = gradeIntent(index, {
      type: "sofa",
      attributes: [
        { kind: "colour", value: "blue" },
        { kind: "material", value: "leather" },
      ],
    });
    expect(ids(two.exact)).toEqual(["3"]);
    expect(ids(two.partial)).toEqual([]);
    expect(ids(two.partialDiffers)).toEqual(["0", "1", "2", "4", "16"]);
  });

  it("a near type (the title names the type) is Partial; a brand query is Exact for its brand only", () => {
    const g = gradeIntent(index, { type: "coffee table", attributes: [] });
    expect(ids(g.exact)).toEqual(["5", "6", "7"]);
    expect(ids(g.partial)).toEqual(["8"]);
    const b = gradeIntent(index, { type: "kid bed", attributes: [{ kind: "brand", value: "kauri" }] });
    expect(ids(b.exact)).toEqual(["13"]);
    expect(ids(b.partialDiffers)).toEqual(["12", "14", "15"]);
    // A head noun alone wants every kind: "table" holds coffee and cocktail tables (and, by title, the set).
    const head = gradeIntent(index, { type: "table", attributes: [] });
    expect(ids(head.exact)).toEqual(["5", "6", "7"]);
    expect(ids(head.partial)).toEqual(["8"]);
  });
});

describe("pseudo-queries", () => {
  it("are shopper-shaped, graded, deterministic for a seed, and respect the budgets", () => {
    const a = pseudoQueries(CATALOG, 42, SMALL);
    const b = pseudoQueries(CATALOG, 42, SMALL);
    const c = pseudoQueries(CATALOG, 7, SMALL);
    expect(a).toEqual(b);
    expect(c.queries.map((q) => q.text)).not.toEqual(a.queries.map((q) => q.text));
    expect(a.queries.length).toBeGreaterThan(5);
    expect(a.queries.length).toBeLessThanOrEqual(SMALL.queries);
    expect(new Set(a.queries.map((q) => q.text)).size).toBe(a.queries.length);
    const shapes = new Set(a.queries.map((q) => q.shape));
    expect([...shapes].sort()).toEqual(["brand", "oneAttribute", "twoAttributes", "type"]);
    const perType = new Map<string, number>();
    for (const q of a.queries) {
      perType.set(q.intent.type, (perType.get(q.intent.type) ?? 0) + 1);
      // The budgets hold for every product the type grades (Exact or Partial, whichever kind).
      const graded = q.grades.exact.length + q.grades.partial.length + q.grades.partialDiffers.length;
      expect(graded).toBeGreaterThanOrEqual(SMALL.minRelevant);
      expect(graded).toBeLessThanOrEqual(SMALL.maxRelevantFloor);
      // Drawn from what the catalogue stocks: some product matches it exactly.
      expect(q.grades.exact.length).toBeGreaterThanOrEqual(1);
      expect(q.intent.attributes.length).toBeLessThanOrEqual(2);
      for (const at of q.intent.attributes) expect(q.text).toContain(at.value);
    }
    expect(Math.max(...perType.values())).toBeLessThanOrEqual(SMALL.maxPerType);
    for (const shape of Object.keys(SMALL.shapes) as Array<keyof typeof SMALL.shapes>) {
      expect(a.queries.filter((q) => q.shape === shape).length).toBeLessThanOrEqual(Math.round(SMALL.shapes[shape] * SMALL.queries));
    }
    // Held out: a quarter (floored), disjoint from training, together all of them.
    expect(a.heldOut.length).toBe(Math.floor(a.queries.length * SMALL.heldOutShare));
    expect([...a.train, ...a.heldOut].sort()).toEqual(a.queries.map((q) => q.id).sort());
    expect(a.train.filter((id) => a.heldOut.includes(id))).toEqual([]);
  });

  it("drops intents whose type grades too many products relevant", () => {
    const tight = pseudoQueries(CATALOG, 42, { ...SMALL, maxRelevantFloor: 4 });
    expect(tight.queries.length).toBeGreaterThan(0);
    // Sofas (6 graded) no longer fit; coffee tables (4) and kids beds (4) do.
    expect(tight.queries.some((q) => q.intent.type === "sofa")).toBe(false);
    expect(tight.queries.some((q) => q.intent.type === "coffee table" || q.intent.type === "kid bed")).toBe(true);
  });
});
