/**
 * Products with their text on disk (training/data/product-file.ts): what
 * training reads of them equals the products held whole, field for field,
 * on the main thread and through a worker's shard; and a trained round is
 * the same, checksum for checksum, whichever way the products are held.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../training/data/dataset.js";
import { ProductFile, StoredProduct, shardProducts, storedShard } from "../../training/data/product-file.js";
import type { Product } from "../../training/data/types.js";
import { trainLexical } from "../../training/lexical.js";
import { readRound, writeRound } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
import { writeSyntheticWands } from "../fixtures.js";

const text = fc.string({ unit: "grapheme", maxLength: 40 });
const product = fc.record(
  {
    id: fc.string({ minLength: 1, maxLength: 8 }),
    name: text,
    class: fc.constantFrom("Chairs", "Beds", ""),
    category: fc.constantFrom("Furniture / Chairs", "", 'Décor / "Rugs"'),
    description: fc.oneof(text, fc.constant('line one\nline two\t\u2028 \\ "quoted"')),
    features: fc.array(fc.tuple(text, text), { maxLength: 4 }),
    facets: fc.dictionary(fc.constantFrom("brand", "rating"), text, { maxKeys: 2 }),
  },
  { requiredKeys: ["id", "name", "class", "category", "description", "features"] },
);

/** What a Product is to its readers: its fields, read through the getters. */
const plain = (p: Product): Product => ({
  id: p.id,
  name: p.name,
  class: p.class,
  category: p.category,
  description: p.description,
  features: p.features,
  ...(p.facets ? { facets: p.facets } : {}),
});

const removeFile = (products: readonly Product[]) => {
  const first = products[0];
  if (first instanceof StoredProduct) first.file.remove();
};

describe("products with their text on disk", () => {
  it("reads back every product as it was written, in any order, and through a worker's shard", () => {
    fc.assert(
      fc.property(fc.array(product, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { minLength: 1, maxLength: 12 }), (products, picks) => {
        const file = new ProductFile();
        for (const p of products) file.add(p);
        const stored = file.finish();
        expect(stored).toHaveLength(products.length);
        expect(stored.every((p) => p instanceof StoredProduct)).toBe(true);
        // Backwards, so each read is a fresh positioned read, not the last line kept.
        for (let j = stored.length - 1; j >= 0; j--) expect(plain(stored[j] as Product)).toEqual(products[j]);
        const lines = picks.map((n) => n % products.length);
        const chosen = lines.map((l) => stored[l] as Product);
        const shard = storedShard(chosen);
        expect(shard).not.toBeNull();
        const read = shardProducts(shard as NonNullable<typeof shard>);
        expect(read.count).toBe(chosen.length);
        expect(lines.map((_, j) => read.product(j))).toEqual(lines.map((l) => products[l]));
        file.remove();
      }),
      { numRuns: 60 },
    );
  });

  it("is refused for a worker when the products are held whole", () => {
    const held: Product[] = [{ id: "1", name: "chair", class: "Chairs", category: "", description: "", features: [] }];
    expect(storedShard(held)).toBeNull();
  });

  it("loads a dataset equal to the one held whole", async () => {
    const synth = writeSyntheticWands(60);
    const whole = await loadDataset(synth.dir);
    const onDisk = await loadDataset(synth.dir, { productsOnDisk: true });
    expect(onDisk.products.every((p) => p instanceof StoredProduct)).toBe(true);
    expect(onDisk.products.map(plain)).toEqual(whole.products.map(plain));
    expect(onDisk.relevant).toEqual(whole.relevant);
    removeFile(onDisk.products);
  });

  it("trains the same rounds whichever way the products are held", async () => {
    const synth = writeSyntheticWands(150);
    const run = async (productsOnDisk: boolean, workers?: number) => {
      const dataset = await loadDataset(synth.dir, { productsOnDisk });
      const root = mkdtempSync(join(tmpdir(), "cogr-pf-"));
      writeRound(buildRound0(dataset), root);
      const progress = { phaseStart() {}, step() {}, phaseEnd() {} };
      const opts = {
        rounds: 1,
        seed: 5,
        fromRound: 0,
        epochs: { sft: 1, query: 1, item: 1 },
        ablations: { noSft: false, sharedGenerator: false, itemReward: "marginal", freezeItems: false, noHints: false },
        artifactsRoot: root,
        ...(workers ? { workers } : {}),
      } as const;
      expect(trainLexical(dataset, opts, progress).rounds).toEqual([1]);
      removeFile(dataset.products);
      return readRound(1, root).manifest;
    };
    const whole = await run(false, 2);
    const onDisk = await run(true, 2);
    expect(onDisk.contentHash).toBe(whole.contentHash);
    expect(onDisk.checksums).toEqual(whole.checksums);
  });
});
