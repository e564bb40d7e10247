/**
 * Round 0: base keywords without an LLM (the stand-in for Alg. 1's G_0).
 * Items get the extractor's top-M n-grams; the query side ships the same
 * extractor, limited to the keywords the item side emitted.
 */
import { EXTRACTOR_DEFAULTS, extractKeywords, itemSegments, ngramDocumentFrequencies } from "../core/extract.js";
import { KeywordIndex } from "../core/inverted-index.js";
import { extractorSpec, loadQueryGenerator } from "../core/query-generator.js";
import { SPLIT_DEFAULTS, type Split, splitQueries } from "../core/split.js";
import type { Dataset } from "./data/wands.js";
import { evaluateKeywords, toEvalQueries } from "./evaluate.js";
import type { RoundContent, RoundItem } from "./round-artifact.js";

export interface Round0Options {
  readonly seed?: number;
  readonly devQueries?: number;
}

export function extractItemKeywords(dataset: Pick<Dataset, "products">): RoundItem[] {
  const segments = dataset.products.map(itemSegments);
  const df = ngramDocumentFrequencies(segments, EXTRACTOR_DEFAULTS.maxNgram);
  const n = dataset.products.length;
  return dataset.products.map((p, j) => ({
    id: p.id,
    name: p.name,
    class: p.class,
    category: p.category,
    keywords: extractKeywords(segments[j] ?? [], df, n),
  }));
}

export function buildRound0(dataset: Dataset, opts: Round0Options = {}): RoundContent {
  // 50 dev queries as in the paper (§3.1), but never more than a quarter of a small query set.
  const ids = dataset.queries.map((q) => q.id);
  const split: Split = splitQueries(ids, opts.seed, opts.devQueries ?? Math.min(SPLIT_DEFAULTS.devQueries, Math.floor(ids.length / 4)));
  const items = extractItemKeywords(dataset);
  const index = KeywordIndex.build(items);
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
    config: { generator: "extractor", extractor: EXTRACTOR_DEFAULTS, data: dataset.dir, labelStats: dataset.labelStats },
    items,
    index,
    queryGenerator,
    metrics: { dev: summary(split.dev), train: summary(split.train) },
  };
}
