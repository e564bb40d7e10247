/**
 * The serving manifest: what the catalogue's `rounds` row holds for a
 * published round, and what GET /v1/rounds shows. Versioned; the worker
 * refuses a manifest of another version.
 */
import type { QueryGeneratorSpec } from "../../core/query-generator.js";
import { KEYWORD_RANKER, type RankerSpec, rankerName } from "../../core/ranker.js";

export const SERVING_MANIFEST_FORMAT = "cogr-serving-manifest";
export const SERVING_MANIFEST_VERSION = 2;

export interface ServingManifest {
  readonly format: typeof SERVING_MANIFEST_FORMAT;
  readonly version: number;
  readonly round: number;
  /** The round artifact's content hash (every file, the split, the config): part of every cache key, so a republished round never meets stale cache entries. */
  readonly contentHash: string;
  readonly createdAt: string;
  readonly publishedAt: string;
  readonly shardCount: number;
  /**
   * The rounds whose rows this round reads, itself first, then the round it
   * was published on and that round's chain (workers/publish/plan.ts): a
   * posting or item row comes from the first of them that has one.
   */
  readonly chain: readonly number[];
  readonly stats: { readonly itemCount: number; readonly totalLength: number; readonly avgLength: number };
  readonly counts: { readonly items: number; readonly keywords: number; readonly words: number };
  readonly checksums: Readonly<Record<string, string>>;
  readonly metrics: Readonly<Record<string, unknown>>;
  readonly queryGenerator: { readonly kind: QueryGeneratorSpec["kind"]; readonly model?: string; readonly policy: boolean };
  readonly split: { readonly seed: number; readonly train: number; readonly dev: number };
  /** The ranker baked into the word postings (core/ranker.ts); absent in manifests published before rankers: the keyword bag. */
  readonly ranker?: RankerSpec;
}

/**
 * Rows read for a round's whole chain, grouped by `key`: each key keeps the
 * rows of the first chain round that has any (a round's own rows shadow its
 * base's). The reads of item rows and posting directories both resolve so.
 */
export function rowsByChain<R extends { readonly round: number }, K>(rows: readonly R[], chain: readonly number[], key: (r: R) => K): Map<K, R[]> {
  const rank = new Map(chain.map((r, j) => [r, j]));
  const best = new Map<K, { rank: number; rows: R[] }>();
  for (const r of rows) {
    const at = rank.get(r.round) as number;
    const b = best.get(key(r));
    if (!b || at < b.rank) best.set(key(r), { rank: at, rows: [r] });
    else if (at === b.rank) b.rows.push(r);
  }
  return new Map([...best].map(([k, b]) => [k, b.rows]));
}

export function parseServingManifest(text: string): ServingManifest {
  const m = JSON.parse(text) as Partial<ServingManifest>;
  if (m.format !== SERVING_MANIFEST_FORMAT || m.version !== SERVING_MANIFEST_VERSION) {
    throw new Error(`unsupported serving manifest ${String(m.format)} v${String(m.version)}`);
  }
  return m as ServingManifest;
}

/** The fields GET /v1/rounds may show. */
export function publicManifest(m: ServingManifest) {
  return {
    round: m.round,
    version: m.version,
    createdAt: m.createdAt,
    publishedAt: m.publishedAt,
    items: m.counts.items,
    keywords: m.counts.keywords,
    shards: m.shardCount,
    queryGenerator: m.queryGenerator,
    ranker: rankerName(m.ranker ?? KEYWORD_RANKER),
    metrics: m.metrics,
    checksums: m.checksums,
  };
}
