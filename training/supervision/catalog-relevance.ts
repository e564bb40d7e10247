/**
 * Graded pseudo-relevance of a pseudo-query's intent, from the catalogue's
 * structure alone, the way WANDS grades (Exact, Partial; App. A binarises
 * both to relevant):
 *
 * - **Exact**: the product is of the intent's type (one of its types ends
 *   with the type's words: a "knob" query wants door knobs and cabinet
 *   knobs) and has every attribute of the intent (its features or its
 *   name say the value; a brand is its brand);
 * - **Partial**: of the type, with an attribute that differs or is unknown;
 *   or a near type: not of the type, but its title names the type ("coffee
 *   table set" for a coffee table).
 *
 * Everything else is irrelevant, as WANDS's unlabelled products are.
 */
import { getOrInsert } from "../../core/collections.js";
import type { Attribute, CatalogFacts, ProductFacts } from "./catalog-facts.js";
import { typeSuffixes } from "./catalog-facts.js";

export interface Intent {
  /** A type key: singular words ("coffee table"). */
  readonly type: string;
  /** 0–2 attributes, a brand among them for a brand query, in kind order. */
  readonly attributes: readonly Attribute[];
}

export interface Grades {
  /** Product ordinals, ascending. */
  readonly exact: readonly number[];
  /** Partial: of the type with an attribute unknown, or a near type… */
  readonly partial: readonly number[];
  /** …or of the type with an attribute it says otherwise (another colour, another brand). Partial too, in WANDS's grading. */
  readonly partialDiffers: readonly number[];
}

export interface RelevanceIndex {
  readonly facts: CatalogFacts;
  /** Type suffix → products of that type. */
  readonly byType: ReadonlyMap<string, readonly number[]>;
  /** Title n-gram (singular) → products whose name holds it. */
  readonly byTitle: ReadonlyMap<string, readonly number[]>;
}

export function relevanceIndex(facts: CatalogFacts): RelevanceIndex {
  const byType = new Map<string, number[]>();
  const byTitle = new Map<string, number[]>();
  facts.products.forEach((p, j) => {
    for (const t of new Set(p.types.flatMap(typeSuffixes))) getOrInsert(byType, t, (): number[] => []).push(j);
    for (const g of p.titleGrams) getOrInsert(byTitle, g, (): number[] => []).push(j);
  });
  return { facts, byType, byTitle };
}

/** Whether a product has an attribute: its features or name say the value (a brand: it is its brand). */
export function hasAttribute(p: ProductFacts, a: Attribute): boolean {
  if (a.kind === "brand") return p.brand === a.value;
  return p.titleGrams.has(a.value) || p.attributes.some((b) => b.kind === a.kind && b.value === a.value);
}

/** Whether a product says another value of the attribute's kind (without saying this one). */
export const contradicts = (p: ProductFacts, a: Attribute): boolean =>
  !hasAttribute(p, a) && (a.kind === "brand" ? p.brand !== undefined : p.attributes.some((b) => b.kind === a.kind));

/** Products of the type, and those whose title names it without being of it. */
export function typeMatches(index: RelevanceIndex, type: string): { readonly of: readonly number[]; readonly near: readonly number[] } {
  const of = index.byType.get(type) ?? [];
  const isOf = new Set(of);
  return { of, near: (index.byTitle.get(type) ?? []).filter((j) => !isOf.has(j)) };
}

/** How many products an intent of this type grades relevant (Exact + Partial): the type alone decides it. */
export const relevantCount = (index: RelevanceIndex, type: string): number => {
  const m = typeMatches(index, type);
  return m.of.length + m.near.length;
};

export function gradeIntent(index: RelevanceIndex, intent: Intent): Grades {
  const { of, near } = typeMatches(index, intent.type);
  const exact: number[] = [];
  const partial: number[] = [...near];
  const partialDiffers: number[] = [];
  for (const j of of) {
    const p = index.facts.products[j] as ProductFacts;
    if (intent.attributes.every((a) => hasAttribute(p, a))) exact.push(j);
    else (intent.attributes.some((a) => contradicts(p, a)) ? partialDiffers : partial).push(j);
  }
  return { exact, partial: partial.sort((a, b) => a - b), partialDiffers };
}
