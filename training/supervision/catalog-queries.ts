/**
 * Pseudo-queries from the catalogue (doc2query in spirit, on CPU, no model):
 * what a shopper types is a product type with one or two attributes ("gray
 * velvet sofa", "kids bed twin"), a type alone, or a brand and a type
 * ("gurney slade tv stand"). Every intent (type, attributes) the catalogue
 * supports is counted: its support is the number of products that match it
 * exactly. Intents whose type grades too few or too many products relevant
 * are dropped (a query's relevant set is a small share of a catalogue), and
 * the rest are drawn without replacement with probability ∝ support
 * (Efraimidis–Spirakis keys), per query shape, with at most a few per type,
 * so the draw follows what the catalogue stocks without letting its largest
 * type fill the set. Each drawn intent gets a surface text and its graded
 * relevance (catalog-relevance.ts). Deterministic for a seed and
 * independent of the products' order up to their ordinals.
 */
import { getOrInsert } from "../../core/collections.js";
import { Rng } from "../../core/rng.js";
import { splitQueries } from "../../core/split.js";
import type { Product } from "../data/wands.js";
import { type Attribute, type CatalogFacts, catalogFacts, FACT_LIMITS, kindRank } from "./catalog-facts.js";
import { type Grades, gradeIntent, type Intent, type RelevanceIndex, relevanceIndex, relevantCount } from "./catalog-relevance.js";

export const PSEUDO_QUERY_BUDGETS = {
  /** Pseudo-queries drawn in all (training and held out): about 2.5× WANDS's 405 training queries, every shape well represented. */
  queries: 1100,
  /** Held out of training, for the per-phase F1 the trainer prints and records (never hand labels). */
  heldOutShare: 0.1,
  /** An intent whose type grades fewer products relevant is dropped… */
  minRelevant: 3,
  /**
   * …and one whose type grades more than this share of the catalogue (a WANDS query's relevant set is 0.3 % of
   * its catalogue at the median, 4 % at the 99th percentile). 0.05 rather than 0.02: with 0.02 the broad head
   * nouns ("table", "chair") had no pseudo-query and item phases stripped them from the items; chosen by F1 on
   * the WANDS training queries, which catalogue-only training never reads (README "Without labels").
   */
  maxRelevantShare: 0.05,
  /** …but never fewer than this many, so a small catalogue keeps its types. */
  maxRelevantFloor: 50,
  /** At most this many pseudo-queries per type, whatever their attributes. */
  maxPerType: 4,
  /** Shares of the query shapes. */
  shapes: { type: 0.2, oneAttribute: 0.45, twoAttributes: 0.2, brand: 0.15 },
  /** Share of texts with a plural head ("leather chairs"). */
  pluralShare: 0.3,
  /** Share of texts with the (last) attribute after the type ("kids bed twin", "tv stand by gurney"). */
  afterTypeShare: 0.25,
} as const;

export type QueryShape = keyof typeof PSEUDO_QUERY_BUDGETS.shapes;
/** PSEUDO_QUERY_BUDGETS' shape with other values (tests draw from small catalogues). */
export interface PseudoQueryBudgets {
  readonly queries: number;
  readonly heldOutShare: number;
  readonly minRelevant: number;
  readonly maxRelevantShare: number;
  readonly maxRelevantFloor: number;
  readonly maxPerType: number;
  readonly shapes: Readonly<Record<QueryShape, number>>;
  readonly pluralShare: number;
  readonly afterTypeShare: number;
}

export interface PseudoQuery {
  /** "pq-N", N its draw rank. */
  readonly id: string;
  readonly text: string;
  readonly shape: QueryShape;
  readonly intent: Intent;
  /** How many products match the intent exactly (its weight in the draw). */
  readonly support: number;
  readonly grades: Grades;
}

export interface PseudoQuerySet {
  readonly queries: readonly PseudoQuery[];
  /** Ids of the queries training uses, and of those held out for its per-phase F1. */
  readonly train: readonly string[];
  readonly heldOut: readonly string[];
  /** Intents the catalogue supports before the draw, and those the relevance budgets kept. */
  readonly intents: { readonly supported: number; readonly inBudget: number };
}

const shapeOf = (attrs: readonly Attribute[]): QueryShape =>
  attrs.some((a) => a.kind === "brand") ? "brand" : attrs.length === 0 ? "type" : attrs.length === 1 ? "oneAttribute" : "twoAttributes";
const intentKey = (i: Intent) => [i.type, ...i.attributes.map((a) => `${a.kind}:${a.value}`)].join("\u0000");

/** Every intent the catalogue supports, with its support: per product, each type (and its head) alone, with one attribute, two of different kinds, or its brand. */
export function supportedIntents(facts: CatalogFacts): Map<string, { intent: Intent; support: number }> {
  const out = new Map<string, { intent: Intent; support: number }>();
  const add = (type: string, attributes: Attribute[]) => {
    const intent = { type, attributes };
    const key = intentKey(intent);
    const seen = out.get(key);
    if (seen) seen.support++;
    else out.set(key, { intent, support: 1 });
  };
  for (const p of facts.products) {
    const attrs = p.attributes.slice(0, FACT_LIMITS.maxAttributesPerProduct);
    // Each type whole and its head noun alone ("round door knob", "knob"): the suffixes between ("door knob") are
    // types of their own where the catalogue says so, and otherwise mostly modifiers ("mounted shelf").
    for (const type of new Set(p.types.flatMap((t) => [t, t.split(" ").pop() as string]))) {
      const typeWords = new Set(type.split(" "));
      // An attribute the type already says ("wood" of "wood bench") adds nothing to it.
      const own = attrs.filter((a) => !a.value.split(" ").some((w) => typeWords.has(w)));
      add(type, []);
      own.forEach((a, j) => {
        add(type, [a]);
        for (const b of own.slice(j + 1)) if (b.kind !== a.kind) add(type, [a, b]);
      });
      if (p.brand && !typeWords.has(p.brand)) add(type, [{ kind: "brand", value: p.brand }]);
    }
  }
  return out;
}

/** A surface text for an intent: its attributes' and type's spellings in one of a few shopper word orders. */
function surfaceText(facts: CatalogFacts, intent: Intent, rng: Rng, budgets: PseudoQueryBudgets): string {
  const spelled = facts.surface.get(intent.type);
  const type = rng.next() < budgets.pluralShare && spelled?.plural ? spelled.plural : (spelled?.singular ?? intent.type);
  const values = [...intent.attributes].sort((a, b) => kindRank(a.kind) - kindRank(b.kind)).map((a) => facts.surface.get(a.value)?.singular ?? a.value);
  const after = rng.next() < budgets.afterTypeShare;
  if (intent.attributes.some((a) => a.kind === "brand")) return after ? `${type} by ${values.join(" ")}` : `${values.join(" ")} ${type}`;
  if (values.length === 0) return type;
  return after ? [...values.slice(0, -1), type, values[values.length - 1]].join(" ") : [...values, type].join(" ");
}

/**
 * The pseudo-queries of a catalogue: drawn, spelled and graded, then split
 * into training and held-out queries by core/split.ts's seeded hash.
 */
export function pseudoQueries(products: readonly Product[], seed: number, budgets: PseudoQueryBudgets = PSEUDO_QUERY_BUDGETS): PseudoQuerySet {
  const facts = catalogFacts(products);
  const index = relevanceIndex(facts);
  const supported = supportedIntents(facts);
  const maxRelevant = Math.max(budgets.maxRelevantFloor, Math.ceil(budgets.maxRelevantShare * products.length));
  const sizes = new Map<string, number>();
  const sizeOf = (type: string) => getOrInsert(sizes, type, () => relevantCount(index, type));
  // Sorted by key before any draw, so the draw does not depend on the order intents were met in.
  const eligible = [...supported.entries()]
    .filter(([, { intent }]) => {
      const n = sizeOf(intent.type);
      return n >= budgets.minRelevant && n <= maxRelevant;
    })
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, v]) => v);
  const rng = new Rng(seed ^ 0x2c1b3c6d);
  // Efraimidis–Spirakis: the smallest −ln(u)/w are a draw without replacement with probability ∝ w.
  const keyed = eligible.map((e) => ({ ...e, key: -Math.log(1 - rng.next()) / e.support }));
  keyed.sort((a, b) => a.key - b.key);
  // The shapes take turns, each its next intent in key order, so none finds the per-type caps filled by the others.
  const shapes = Object.keys(budgets.shapes) as QueryShape[];
  const lists = shapes.map((shape) => ({
    shape,
    quota: Math.round(budgets.shapes[shape] * budgets.queries),
    taken: 0,
    at: 0,
    of: keyed.filter((e) => shapeOf(e.intent.attributes) === shape),
  }));
  const perType = new Map<string, number>();
  const texts = new Set<string>();
  const drawn: Array<Omit<PseudoQuery, "id" | "grades">> = [];
  for (let open = true; open; ) {
    open = false;
    for (const list of lists) {
      while (list.taken < list.quota && list.at < list.of.length) {
        const e = list.of[list.at++] as (typeof keyed)[number];
        if ((perType.get(e.intent.type) ?? 0) >= budgets.maxPerType) continue;
        const text = surfaceText(facts, e.intent, rng, budgets);
        if (texts.has(text)) continue;
        texts.add(text);
        perType.set(e.intent.type, (perType.get(e.intent.type) ?? 0) + 1);
        drawn.push({ text, shape: list.shape, intent: e.intent, support: e.support });
        list.taken++;
        open = true;
        break;
      }
    }
  }
  const queries = drawn.map((q, j): PseudoQuery => ({ ...q, id: `pq-${j}`, grades: gradeIntent(index, q.intent) }));
  const ids = queries.map((q) => q.id);
  const split = splitQueries(ids, seed, Math.floor(ids.length * budgets.heldOutShare));
  return { queries, train: split.train, heldOut: split.dev, intents: { supported: supported.size, inBudget: eligible.length } };
}

/** The relevance index of a catalogue (for tests and the examples command). */
export const catalogRelevanceIndex = (products: readonly Product[]): RelevanceIndex => relevanceIndex(catalogFacts(products));
