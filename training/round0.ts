/**
 * Round 0: base keywords without an LLM (the stand-in for Alg. 1's G_0).
 * Items get the extractor's top-M n-grams; the query side ships the same
 * extractor, limited to the keywords the item side emitted.
 */
import { facetsField } from "../core/columns.js";
import { countItemNgrams, EXTRACTOR_DEFAULTS, extractKeywords, itemSegments, ngramDocumentFrequencies, type Segment } from "../core/extract.js";
import { IndexBuilder, KeywordIndex } from "../core/inverted-index.js";
import { extractorSpec, loadQueryGenerator } from "../core/query-generator.js";
import { KEYWORD_RANKER, type RankerSpec } from "../core/ranker.js";
import { SPLIT_DEFAULTS, type Split, splitQueries } from "../core/split.js";
import { dataSource, loadSourceLabels, loadSourceQueries, streamSourceProducts } from "./data/dataset.js";
import { DataError, type Dataset, type Product } from "./data/types.js";
import { evaluateKeywords, productText, toEvalQueries } from "./evaluate.js";
import { LineWriter } from "./jsonl.js";
import { ROUND_QUERY_TERMS } from "./query-terms.js";
import type { RoundContent, RoundItem } from "./round-artifact.js";

export interface Round0Options {
  readonly seed?: number;
  readonly devQueries?: number;
  /** A split given whole (cross-validation's folds, training/cv.ts) instead of a seeded one. */
  readonly split?: Split;
  /** Which words the BM25 bags hold (core/ranker.ts); default the keyword bag. */
  readonly ranker?: RankerSpec;
}

export function extractItemKeywords(dataset: Pick<Dataset, "products">): RoundItem[] {
  const segments = dataset.products.map(itemSegments);
  const df = ngramDocumentFrequencies(segments, EXTRACTOR_DEFAULTS.maxNgram);
  const n = dataset.products.length;
  return dataset.products.map((p, j) => round0Item(p, segments[j] ?? [], df, n));
}

/** A product's round-0 item: its top-M n-grams against the catalogue's df. */
function round0Item(p: Product, segments: readonly Segment[], df: ReadonlyMap<string, number>, itemCount: number): RoundItem {
  return { id: p.id, name: p.name, class: p.class, category: p.category, keywords: extractKeywords(segments, df, itemCount), ...facetsField(p.facets) };
}

export function buildRound0(dataset: Dataset, opts: Round0Options = {}): RoundContent {
  const items = extractItemKeywords(dataset);
  const text = new Map(dataset.products.map((p) => [p.id, productText(p)]));
  const index = KeywordIndex.build(
    items.map((it) => ({ ...it, text: text.get(it.id) })),
    { ranker: opts.ranker ?? KEYWORD_RANKER, queryTerms: ROUND_QUERY_TERMS },
  );
  return round0Content(index, { items }, dataset, opts);
}

/**
 * Round 0 of a catalogue streamed from disk (COGR_DATA: a catalogue folder or
 * WANDS), in two passes over its products: the n-gram df first, then each
 * item's keywords, written to a line file and added to the index as it goes.
 * What is held is the df table, the index and the labels, never the products.
 * Products must come in ascending id order (an imported catalogue, WANDS and
 * `npm run synth` write them so); otherwise use buildRound0. Without queries
 * or labels the split is empty and the metrics are zero over no query.
 */
export async function buildRound0Streaming(dir: string, itemsFile: string, opts: Round0Options = {}): Promise<RoundContent> {
  const src = dataSource(dir);
  const path = src.products;
  const df = new Map<string, number>();
  const ids = new Set<string>();
  for await (const p of streamSourceProducts(src)) {
    if (ids.has(p.id)) throw new DataError(`${path}: duplicate product_id ${p.id}`);
    ids.add(p.id);
    countItemNgrams(df, itemSegments(p));
  }
  const builder = new IndexBuilder({ ranker: opts.ranker ?? KEYWORD_RANKER, queryTerms: ROUND_QUERY_TERMS });
  const out = new LineWriter(itemsFile);
  for await (const p of streamSourceProducts(src)) {
    const item = round0Item(p, itemSegments(p), df, ids.size);
    builder.add({ ...item, text: productText(p) });
    out.line(JSON.stringify(item));
  }
  out.close();
  df.clear();
  const queries = await loadSourceQueries(src);
  const { relevant, stats } = await loadSourceLabels(src, ids);
  return round0Content(builder.finish(), { items: [], itemsFile }, { dir, queries, relevant, labelStats: stats }, opts);
}

function round0Content(
  index: KeywordIndex,
  items: Pick<RoundContent, "items" | "itemsFile">,
  dataset: Pick<Dataset, "dir" | "queries" | "relevant" | "labelStats">,
  opts: Round0Options,
): RoundContent {
  // 50 dev queries as in the paper (§3.1), but never more than a quarter of a small query set.
  const ids = dataset.queries.map((q) => q.id);
  const split: Split = opts.split ?? splitQueries(ids, opts.seed, opts.devQueries ?? Math.min(SPLIT_DEFAULTS.devQueries, Math.floor(ids.length / 4)));
  const keywordDf = new Map<string, number>();
  for (const [k, p] of index.keywordPostings) keywordDf.set(k, p.length);
  const queryGenerator = extractorSpec(keywordDf, index.itemCount);
  // Offline figures on both splits, as trained rounds record them: the experiment CLI's offline gate compares dev F1.
  const generate = loadQueryGenerator(queryGenerator) ?? (() => []);
  const byId = new Map(dataset.queries.map((q) => [q.id, q]));
  const summary = (ids: readonly string[]) => {
    const { queries, leftOut } = toEvalQueries(
      ids.map((id) => byId.get(id)).filter((q) => q !== undefined),
      dataset.relevant,
      index,
    );
    return evaluateKeywords(index, generate, queries, leftOut);
  };
  return {
    round: 0,
    split,
    config: { generator: "extractor", extractor: EXTRACTOR_DEFAULTS, data: dataset.dir, labelStats: dataset.labelStats, ranker: index.ranker },
    ...items,
    index,
    queryGenerator,
    metrics: { dev: summary(split.dev), train: summary(split.train) },
  };
}
