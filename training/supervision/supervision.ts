/**
 * Where a training run's queries and relevance come from
 * (`npm run train -- --supervision labels|catalog|labels+catalog`):
 *
 * - `labels`: the hand-labelled queries of the round's split, train and dev;
 * - `catalog`: pseudo-queries alone (catalog-queries.ts), their training part
 *   to train on, their held-out part for the F1 the trainer prints after each
 *   phase. The path reads product.csv only: it never opens a query or label file;
 * - `labels+catalog`: the hand-labelled training queries plus as many
 *   pseudo-queries (never more: they would outvote the labels), dev the
 *   hand-labelled dev split, untouched.
 * - `clicks`: the queries users typed, graded from their clicks, carts and
 *   purchases (clicks.ts); `clicks+catalog` adds as many pseudo-queries, for
 *   the intents nobody has typed yet.
 *
 * The round's split (core/split.ts, recorded by round 0) stays the
 * hand-labelled one in every mode, so `npm run eval` scores every round on
 * the same dev queries; pseudo-queries live in training only.
 */

import { normalizeKeyword } from "../../core/normalize.js";
import type { Split } from "../../core/split.js";
import type { ClickRelevance } from "../clicks/derive.js";
import { dataSource, type LoadOptions, loadSourceProducts, hasLabels as sourceHasLabels } from "../data/dataset.js";
import { DataError, type Dataset, NO_LABELS, type Query } from "../data/types.js";
import { PSEUDO_QUERY_BUDGETS, type PseudoQuery, pseudoQueries } from "./catalog-queries.js";
import { type ClickQueries, clickQueries } from "./clicks.js";

export const SUPERVISIONS = ["labels", "catalog", "labels+catalog", "clicks", "clicks+catalog"] as const;
export type Supervision = (typeof SUPERVISIONS)[number];

export const isSupervision = (v: string): v is Supervision => (SUPERVISIONS as readonly string[]).includes(v);

/** Whether a data folder has hand-labelled queries: both files present (neither is opened). */
export const hasLabels = (dir: string): boolean => sourceHasLabels(dataSource(dir));

/** What the data has: labels when the folder has labelled queries, else the catalogue alone. */
export const defaultSupervision = (dir: string): Supervision => (hasLabels(dir) ? "labels" : "catalog");

/** A dataset of products only: the products file is read, no other file is opened. */
export async function loadCatalogOnly(dir: string, opts: LoadOptions = {}): Promise<Dataset> {
  const src = dataSource(dir);
  const products = await loadSourceProducts(src, opts);
  if (new Set(products.map((p) => p.id)).size !== products.length) throw new DataError(`${src.products}: duplicate product_id`);
  return { dir, products, queries: [], relevant: new Map(), labelStats: NO_LABELS };
}

/** The queries a run trains on and scores after each phase, with their relevant product ids. */
export interface SupervisedQueries {
  readonly train: readonly Query[];
  readonly dev: readonly Query[];
  readonly relevant: ReadonlyMap<string, ReadonlySet<string>>;
  /** Pseudo-queries in training and held out (catalog), or added to training (labels+catalog). */
  readonly pseudo?: { readonly train: number; readonly heldOut: number };
  /** Click supervision: the items judged per query; a query without an entry has every item judged. */
  readonly judged?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Click queries in training and held out (held out only without labels), and what was left out. */
  readonly clicks?: { readonly train: number; readonly heldOut: number; readonly unknownWeight: number } & ClickQueries["stats"];
}

/** The click relevance a clicks run trains on, and how it treats unjudged items. */
export interface ClickInput {
  readonly relevance: ClickRelevance;
  /** What an unjudged retrieved item weighs in |I_ret| (0: missing … 1: irrelevant). */
  readonly unknownWeight: number;
}

const asQuery = (q: PseudoQuery): Query => ({ id: q.id, text: q.text, class: q.intent.type });

/**
 * Relevant, as product ids: Exact, and Partial unless the product says another value of an attribute the query
 * names. WANDS grades those Partial too, but rewarding them taught item phases to put "outdoor clock" on every
 * clock: the query's words then meant nothing beyond its type. Chosen by F1 on the WANDS training queries
 * (README "Without labels"), which catalogue-only training never reads.
 */
function pseudoRelevance(dataset: Pick<Dataset, "products">, queries: readonly PseudoQuery[]): Map<string, Set<string>> {
  const id = (j: number) => (dataset.products[j] as Dataset["products"][number]).id;
  return new Map(queries.map((q) => [q.id, new Set([...q.grades.exact, ...q.grades.partial].map(id))]));
}

export function supervisedQueries(dataset: Dataset, split: Split, supervision: Supervision, seed: number, clicks?: ClickInput): SupervisedQueries {
  const byId = new Map(dataset.queries.map((q) => [q.id, q]));
  const pick = (ids: readonly string[]) => ids.map((id) => byId.get(id)).filter((q) => q !== undefined);
  if (supervision === "labels") return { train: pick(split.train), dev: pick(split.dev), relevant: dataset.relevant };
  if (supervision === "clicks" || supervision === "clicks+catalog") return fromClicks(dataset, split, supervision, seed, clicks, pick);
  const pq = pseudoQueries(dataset.products, seed, PSEUDO_QUERY_BUDGETS);
  if (pq.queries.length === 0) throw new DataError(`${dataset.dir}: the catalogue supports no pseudo-query (no product type with enough products)`);
  const pById = new Map(pq.queries.map((q) => [q.id, q]));
  const pseudo = (ids: readonly string[]) => ids.map((id) => pById.get(id) as PseudoQuery);
  if (supervision === "catalog") {
    const train = pseudo(pq.train);
    const heldOut = pseudo(pq.heldOut);
    return {
      train: train.map(asQuery),
      dev: heldOut.map(asQuery),
      relevant: pseudoRelevance(dataset, pq.queries),
      pseudo: { train: train.length, heldOut: heldOut.length },
    };
  }
  const labelled = pick(split.train);
  const added = pseudo(pq.train).slice(0, labelled.length);
  const clash = added.find((q) => byId.has(q.id));
  if (clash) throw new DataError(`${dataset.dir}: query id ${JSON.stringify(clash.id)} is also a pseudo-query's id`);
  return {
    train: [...labelled, ...added.map(asQuery)],
    dev: pick(split.dev),
    relevant: new Map([...dataset.relevant, ...pseudoRelevance(dataset, added)]),
    pseudo: { train: added.length, heldOut: 0 },
  };
}

function fromClicks(
  dataset: Dataset,
  split: Split,
  supervision: "clicks" | "clicks+catalog",
  seed: number,
  clicks: ClickInput | undefined,
  pick: (ids: readonly string[]) => Query[],
): SupervisedQueries {
  if (!clicks) throw new DataError(`--supervision ${supervision} needs --events FILE (npm run events:export)`);
  const dev = dataset.relevant.size > 0 ? pick(split.dev) : [];
  const cq = clickQueries(
    clicks.relevance,
    new Set(dataset.products.map((p) => p.id)),
    new Set(dev.map((q) => normalizeKeyword(q.text))),
    dev.length === 0,
    seed,
  );
  if (cq.train.length === 0) throw new DataError("the events give no query a relevant item: nothing to train on (npm run events:export reports what it holds)");
  const relevant = new Map<string, ReadonlySet<string>>([...dataset.relevant, ...cq.relevant]);
  const judged = clicks.unknownWeight < 1 ? cq.judged : undefined;
  const stats = { train: cq.train.length, heldOut: cq.heldOut.length, unknownWeight: clicks.unknownWeight, ...cq.stats };
  const base = { dev: dev.length > 0 ? dev : cq.heldOut, ...(judged ? { judged } : {}), clicks: stats };
  if (supervision === "clicks") return { ...base, train: cq.train, relevant };
  const pq = pseudoQueries(dataset.products, seed, PSEUDO_QUERY_BUDGETS);
  const pById = new Map(pq.queries.map((q) => [q.id, q]));
  const added = pq.train.slice(0, cq.train.length).map((id) => pById.get(id) as PseudoQuery);
  return {
    ...base,
    train: [...cq.train, ...added.map(asQuery)],
    relevant: new Map([...relevant, ...pseudoRelevance(dataset, added)]),
    pseudo: { train: added.length, heldOut: 0 },
  };
}
