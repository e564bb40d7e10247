/** Every product's description and features for the item page (the catalogue's item_details table), replaced whole. */
import { type DataSource, streamSourceProducts } from "../../training/data/dataset.js";
import { packedInserts } from "./sql.js";

/** A description past this is cut (D1's statement limit; the page shows a summary, not a document). */
export const ITEM_DETAIL_LIMITS = { maxDescriptionChars: 20_000, maxFeatureChars: 20_000 } as const;

export async function itemDetailStatements(src: DataSource, quote: (s: string) => string): Promise<{ items: number; statements: string[] }> {
  const values: string[] = [];
  for await (const p of streamSourceProducts(src)) {
    const features = JSON.stringify(p.features).slice(0, ITEM_DETAIL_LIMITS.maxFeatureChars);
    const safe = features.length < ITEM_DETAIL_LIMITS.maxFeatureChars ? features : "[]";
    values.push(`(${quote(p.id)},${quote(p.description.slice(0, ITEM_DETAIL_LIMITS.maxDescriptionChars))},${quote(safe)})`);
  }
  return {
    items: values.length,
    statements: ["DELETE FROM item_details", ...packedInserts("INSERT INTO item_details (id, description, features) VALUES ", values)],
  };
}
