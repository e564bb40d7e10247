/**
 * What the catalogue itself says about each product, read for pseudo-queries
 * (catalog-queries.ts) and their graded relevance (catalog-relevance.ts):
 *
 * - **types**: the product types it is, from its class, its category path's
 *   leaf and its name's head noun ("Coffee & Cocktail Tables" is a coffee
 *   table and a cocktail table; "seeker rocking recliner" a rocking recliner);
 * - **attributes** (kind: value): colour, material, style, room, audience… from
 *   its features' key: value pairs, and from the words of its name and
 *   category path that are attribute values elsewhere in the catalogue
 *   ("gray velvet sofa" is gray and velvet even without features);
 * - **brand**: the leading name word when that word appears nowhere else in
 *   the catalogue (WANDS names start with a line name: "gurney slade …").
 *
 * Words are compared singular (core/morph.ts), so "kids beds" and "kid bed"
 * are one type. Pure functions over the products; no I/O.
 */
import { getOrInsert } from "../../core/collections.js";
import { STOPWORDS } from "../../core/extract.js";
import { singular } from "../../core/morph.js";
import { keywordWords, normalizeKeyword } from "../../core/normalize.js";
import { headWord } from "../../core/policy-candidates.js";
import type { Product } from "../data/wands.js";

export const FACT_LIMITS = {
  /** An attribute value is a phrase of at most this many words… */
  maxValueWords: 3,
  /** …that at least this many products carry in their features (else it is noise, or a one-off). */
  minValueProducts: 3,
  /** A product type is at most this many words (its last ones: "living room table set"). */
  maxTypeWords: 4,
  /** Attributes per product that intents are enumerated from, in kind order, so enumeration stays bounded (matching reads them all). */
  maxAttributesPerProduct: 8,
} as const;

/** The attribute kinds a shopper types, and the feature keys that hold them (matched on the key's letters, any case). */
export const ATTRIBUTE_KINDS = ["colour", "finish", "material", "style", "pattern", "shape", "room", "size", "audience", "theme", "location"] as const;
export type AttributeKind = (typeof ATTRIBUTE_KINDS)[number] | "brand";

const KIND_OF_KEY: ReadonlyArray<readonly [RegExp, AttributeKind]> = [
  [/colou?r|woodtone/, "colour"],
  [/finish/, "finish"],
  [/material|fabric/, "material"],
  [/style/, "style"],
  [/pattern/, "pattern"],
  [/shape/, "shape"],
  [/room/, "room"],
  [/size/, "size"],
  [/lifestage|gender|agegroup|audience/, "audience"],
  [/theme|subject/, "theme"],
  [/location/, "location"],
];
/** Keys about something else that happen to contain a kind's word ("materialdetails", "colorwarranty"…). */
const NOT_ATTRIBUTE_KEY = /detail|warranty|certif|country|care|number|count|included|required/;
/** Values that say an attribute is absent or generic ("no theme", "does not apply", "standard"). */
const NON_VALUE_WORDS: ReadonlySet<string> = new Set(["no", "not", "none", "n", "apply", "yes", "other", "standard", "neutral", "unknown", "na"]);
const NUMERIC = /^[0-9]+$/;

/** A kind's place in ATTRIBUTE_KINDS (brand last): the order attributes are kept and listed in. */
export const kindRank = (kind: AttributeKind): number => (kind === "brand" ? ATTRIBUTE_KINDS.length : ATTRIBUTE_KINDS.indexOf(kind));

export function kindOfKey(key: string): AttributeKind | undefined {
  const k = key.toLowerCase().replace(/[^a-z]/g, "");
  if (NOT_ATTRIBUTE_KEY.test(k)) return undefined;
  return KIND_OF_KEY.find(([re]) => re.test(k))?.[1];
}

/** Normalised words, singular. */
export const singularWords = (text: string): string[] => keywordWords(normalizeKeyword(text)).map(singular);

/** A feature value's attribute values: split at & / , + and "and", numbers dropped ("100 % polyester" is polyester). */
export function attributeValues(raw: string): string[][] {
  const out: string[][] = [];
  for (const piece of raw.split(/[&/,+;]|\band\b/)) {
    // Numbers and codes ("7 to 8 years", "a19") are sizes and models, not what a shopper names a product by; "100 % polyester" is polyester.
    const words = keywordWords(normalizeKeyword(piece.replace(/[0-9]+\s*%/g, " ")));
    if (words.some((w) => /[0-9]/.test(w))) continue;
    if (words.length === 0 || words.length > FACT_LIMITS.maxValueWords) continue;
    if (words.some((w) => NON_VALUE_WORDS.has(w)) || words.every((w) => STOPWORDS.has(w) || w.length < 2)) continue;
    out.push(words);
  }
  return out;
}

/**
 * A class or category name's product types: "Coffee & Cocktail Tables" →
 * coffee table, cocktail table (a singular modifier before "&" takes the next
 * part's head); "Curtains & Drapes" → curtain, drape (a plural stands alone).
 * Each type is its words as written (its key is them singular).
 */
export function typePhrases(text: string): string[][] {
  const out: string[][] = [];
  for (const label of text.split("|")) {
    const parts = label
      .split(/[&,+]|\band\b/i)
      .map((p) => keywordWords(normalizeKeyword(p)).filter((w) => !NUMERIC.test(w)))
      .filter((p) => p.length > 0);
    parts.forEach((words, j) => {
      let phrase = words;
      const only = words[0] as string;
      if (words.length === 1 && singular(only) === only) {
        const next = parts.slice(j + 1).find((p) => p.length > 1 || singular(p[0] as string) !== p[0]);
        if (next) phrase = [only, next[next.length - 1] as string];
      }
      const trimmed = trimStopwords(phrase).slice(-FACT_LIMITS.maxTypeWords);
      if (trimmed.length > 0) out.push(trimmed);
    });
  }
  return out;
}

function trimStopwords(words: readonly string[]): string[] {
  let a = 0;
  let b = words.length;
  while (a < b && STOPWORDS.has(words[a] as string)) a++;
  while (b > a && STOPWORDS.has(words[b - 1] as string)) b--;
  return words.slice(a, b);
}

/** The leaf of a "A / B / C" category path. */
export const categoryLeaf = (category: string): string => category.split("/").pop()?.trim() ?? "";

export interface Attribute {
  readonly kind: AttributeKind;
  /** Singular words joined: what matching compares. */
  readonly value: string;
}

export interface ProductFacts {
  /** Each type's singular words joined ("coffee table"). */
  readonly types: readonly string[];
  readonly attributes: readonly Attribute[];
  readonly brand?: string;
  /** The name's n-grams (≤ 3 words), singular: what "the title says" compares. */
  readonly titleGrams: ReadonlySet<string>;
}

export interface CatalogFacts {
  readonly products: readonly ProductFacts[];
  /** Singular key → the most frequent surface spelling seen (singular head, and plural head when seen). */
  readonly surface: ReadonlyMap<string, { readonly singular: string; readonly plural?: string }>;
}

function ngrams(words: readonly string[], maxN: number): string[] {
  const out: string[] = [];
  for (let n = 1; n <= maxN; n++) for (let s = 0; s + n <= words.length; s++) out.push(words.slice(s, s + n).join(" "));
  return out;
}

/** Counts surface spellings per singular key; the most frequent wins (ties: code-unit order). */
class Spellings {
  private readonly counts = new Map<string, Map<string, number>>();
  add(words: readonly string[]): void {
    const key = words.map(singular).join(" ");
    const m = getOrInsert(this.counts, key, () => new Map<string, number>());
    const s = words.join(" ");
    m.set(s, (m.get(s) ?? 0) + 1);
  }
  best(): Map<string, { singular: string; plural?: string }> {
    const out = new Map<string, { singular: string; plural?: string }>();
    for (const [key, m] of this.counts) {
      const ranked = [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([s]) => s);
      const plural = ranked.find((s) => singular(s.split(" ").pop() as string) !== s.split(" ").pop());
      const sing = ranked.find((s) => s !== plural) ?? (plural ? [...plural.split(" ").slice(0, -1), key.split(" ").pop()].join(" ") : key);
      out.set(key, plural ? { singular: sing, plural } : { singular: sing });
    }
    return out;
  }
}

/** The name's noun phrase before any preposition, its head, and the word before the head (a type modifier unless it is an attribute or a number). */
function nameType(nameWords: readonly string[], lexicon: ReadonlyMap<string, AttributeKind>, brand: string | undefined): string[] | undefined {
  const head = headWord(nameWords);
  // A name ending in a size or code ("… 72 '' h") has no head noun to go by.
  if (head === undefined || head.length < 3 || /[0-9]/.test(head)) return undefined;
  const at = nameWords.findIndex((w) => singular(w) === head);
  if (at < 0) return undefined;
  const before = nameWords[at - 1];
  const modifier =
    before !== undefined && !STOPWORDS.has(before) && !NUMERIC.test(before) && before !== brand && !lexicon.has(singular(before)) && before.length > 1;
  return modifier ? [before as string, nameWords[at] as string] : [nameWords[at] as string];
}

/** Every product's facts, and the surface spellings of the types and values seen. */
export function catalogFacts(products: readonly Product[]): CatalogFacts {
  const spellings = new Spellings();
  // 1. The attribute lexicon: value → kind, from the features (a value seen under several kinds takes its most frequent).
  const valueKinds = new Map<string, Map<AttributeKind, number>>();
  const featureAttrs = products.map((p) => {
    const seen = new Map<string, Attribute>();
    for (const [k, v] of p.features) {
      const kind = kindOfKey(k);
      if (!kind) continue;
      for (const words of attributeValues(v)) {
        const value = words.map(singular).join(" ");
        if (!seen.has(`${kind}:${value}`)) seen.set(`${kind}:${value}`, { kind, value });
        spellings.add(words);
      }
    }
    for (const a of seen.values()) {
      const m = getOrInsert(valueKinds, a.value, () => new Map<AttributeKind, number>());
      m.set(a.kind, (m.get(a.kind) ?? 0) + 1);
    }
    return [...seen.values()];
  });
  const lexicon = new Map<string, AttributeKind>();
  for (const [value, kinds] of valueKinds) {
    const kind = [...kinds].sort((a, b) => b[1] - a[1] || kindRank(a[0]) - kindRank(b[0]))[0]?.[0] as AttributeKind;
    const total = [...kinds.values()].reduce((s, c) => s + c, 0);
    if (total >= FACT_LIMITS.minValueProducts) lexicon.set(value, kind);
  }
  // 2. Brands: a leading name word found nowhere else (no other name position, class, category or feature).
  const elsewhere = new Set<string>();
  const nameWords = products.map((p) => keywordWords(normalizeKeyword(p.name)));
  products.forEach((p, j) => {
    for (const w of (nameWords[j] as string[]).slice(1)) elsewhere.add(w);
    for (const w of keywordWords(normalizeKeyword(`${p.class} ${p.category} ${p.features.map(([, v]) => v).join(" ")}`))) elsewhere.add(w);
  });
  // 3. Per product: types, attributes (features, then lexicon values its name or category path says), brand.
  const facts = products.map((p, j): ProductFacts => {
    const words = nameWords[j] as string[];
    const first = words[0];
    const brand =
      first !== undefined &&
      words.length > 1 &&
      first.length >= 3 &&
      !NUMERIC.test(first) &&
      !STOPWORDS.has(first) &&
      !elsewhere.has(first) &&
      !lexicon.has(singular(first))
        ? first
        : undefined;
    const sing = words.map(singular);
    const titleGrams = new Set(ngrams(sing, 3));
    const attrs = new Map<string, Attribute>();
    for (const a of featureAttrs[j] as Attribute[]) if (lexicon.has(a.value)) attrs.set(`${a.kind}:${a.value}`, a);
    const said = [
      ...ngrams(sing, FACT_LIMITS.maxValueWords),
      ...p.category.split("/").flatMap((level) => ngrams(singularWords(level), FACT_LIMITS.maxValueWords)),
    ];
    for (const g of said) {
      const kind = lexicon.get(g);
      if (kind && !attrs.has(`${kind}:${g}`)) attrs.set(`${kind}:${g}`, { kind, value: g });
    }
    const attributes = [...attrs.values()].sort((a, b) => kindRank(a.kind) - kindRank(b.kind) || (a.value < b.value ? -1 : 1));
    const structural = [...typePhrases(p.class), ...typePhrases(categoryLeaf(p.category))];
    const types = new Map<string, string[]>();
    for (const t of structural) types.set(t.map(singular).join(" "), t);
    // The name's type counts when its head is one of the structural types' heads (or there are none): "rocking recliner" for a Recliner.
    const heads = new Set(structural.map((t) => singular(t[t.length - 1] as string)));
    const named = nameType(words, lexicon, brand);
    if (named && (heads.size === 0 || heads.has(singular(named[named.length - 1] as string)))) types.set(named.map(singular).join(" "), named);
    for (const t of types.values()) spellings.add(t);
    return { types: [...types.keys()].filter((t) => !lexicon.has(t)), attributes, ...(brand ? { brand } : {}), titleGrams };
  });
  return { products: facts, surface: spellings.best() };
}

/** A type's suffixes, longest first ("round door knob", "door knob", "knob"): a query for "knob" wants every kind of knob. */
export function typeSuffixes(type: string): string[] {
  const words = type.split(" ");
  return words.map((_, s) => words.slice(s).join(" ")).filter((t) => !STOPWORDS.has(t.split(" ")[0] as string));
}
