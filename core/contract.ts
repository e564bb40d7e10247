/**
 * The serving contract: what the publisher writes and the worker reads, so
 * both import it and neither imports the other. It holds
 *
 *   - the serving manifest (a published round, as the catalogue's `rounds`
 *     row stores it), derived from the round artifact's manifest by
 *     `servingManifestOf`;
 *   - the storage key schema: posting keys and their shard (core/shard.ts),
 *     the KV keys of a round (query generator, df buckets, cached postings,
 *     cached query keywords) and of the serving configuration;
 *   - the hash helper behind block addresses and keyword cache keys.
 *
 * Pure: Web Crypto is global in workerd and Node alike.
 */
import type { QueryGeneratorSpec } from "./query-generator.js";
import { hasQueryTerms, type QueryTerms } from "./query-terms.js";
import { KEYWORD_RANKER, type RankerSpec } from "./ranker.js";
import type { IndexHeader, RoundItem, RoundManifest } from "./round-format.js";

export { isKeywordKey, keywordKey, POSTING_PREFIX, shardOf, wordKey } from "./shard.js";

// ---- The serving manifest --------------------------------------------------

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
   * was published on and that round's chain (publish/plan.ts): a posting or
   * item row comes from the first of them that has one.
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
  /** How the round plans a query (core/query-terms.ts); absent in rounds without stop words or typed-word weight. */
  readonly queryTerms?: QueryTerms;
}

/** What a posting read needs of a published round (the IndexStore's argument). */
export type RoundRef = Pick<ServingManifest, "round" | "contentHash" | "shardCount" | "chain">;

/** A catalogue item row: the round artifact's item at its ordinal. */
export type ItemRow = RoundItem & { readonly ordinal: number };

/** The serving manifest of a round artifact published on `baseChain`'s round (or in full when it is empty). */
export function servingManifestOf(
  round: { readonly manifest: RoundManifest; readonly header: IndexHeader; readonly queryGenerator: QueryGeneratorSpec },
  shardCount: number,
  baseChain: readonly number[],
  now = new Date(),
): ServingManifest {
  const { manifest, header, queryGenerator } = round;
  return {
    format: SERVING_MANIFEST_FORMAT,
    version: SERVING_MANIFEST_VERSION,
    round: manifest.round,
    contentHash: manifest.contentHash,
    createdAt: manifest.createdAt,
    publishedAt: now.toISOString(),
    shardCount,
    chain: [manifest.round, ...baseChain],
    stats: {
      itemCount: header.itemCount,
      totalLength: header.totalLength,
      avgLength: header.itemCount > 0 && header.totalLength > 0 ? header.totalLength / header.itemCount : 1,
    },
    counts: { items: header.itemCount, keywords: header.keywords, words: header.words },
    checksums: manifest.checksums,
    metrics: manifest.metrics,
    queryGenerator: {
      kind: queryGenerator.kind,
      ...(queryGenerator.kind === "llm" ? { model: queryGenerator.model } : {}),
      policy: queryGenerator.kind !== "llm" || queryGenerator.policy !== undefined,
    },
    split: { seed: manifest.split.seed, train: manifest.split.train.length, dev: manifest.split.dev.length },
    ranker: header.ranker ?? KEYWORD_RANKER,
    ...(hasQueryTerms(header.queryTerms) ? { queryTerms: header.queryTerms } : {}),
  };
}

export function parseServingManifest(text: string): ServingManifest {
  const m = JSON.parse(text) as Partial<ServingManifest>;
  if (m.format !== SERVING_MANIFEST_FORMAT || m.version !== SERVING_MANIFEST_VERSION) {
    throw new Error(`unsupported serving manifest ${String(m.format)} v${String(m.version)}`);
  }
  return m as ServingManifest;
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

// ---- KV keys ----------------------------------------------------------------

/** A round's KV keys carry its number and the first 16 hex digits of its content hash. */
const roundTag = (round: number, contentHash: string) => `${round}:${contentHash.slice(0, 16)}`;

/** Prefixes of every per-round KV key, for unpublish: `${prefix}${round}:`. */
export const ROUND_KV_PREFIXES = ["qgen:", "qdf:", "p:", "kw:", "col:"] as const;

export const queryGeneratorKey = (round: number, contentHash: string) => `qgen:${roundTag(round, contentHash)}`;
export const queryDfKey = (round: number, contentHash: string, bucket: number) => `qdf:${roundTag(round, contentHash)}:${bucket}`;
/** A posting's blocks cached in KV (workers/search/store/kv-store.ts). */
export const kvPostingKeyOf = (round: RoundRef, postingKey: string) => `p:${roundTag(round.round, round.contentHash)}:${postingKey}`;
/** The worker's cache key for a query's keywords: `queryDigest` is the sha-256 hex of the normalised query. */
export const keywordCacheKeyOf = (round: number, contentHash: string, queryDigest: string) => `kw:${roundTag(round, contentHash)}:${queryDigest}`;
/** The round's facet columns (core/columns.ts): their dictionaries (`meta`), and each column's codes in chunks (by column index). */
export const columnsMetaKey = (round: number, contentHash: string) => `col:${roundTag(round, contentHash)}:meta`;
export const columnChunkKey = (round: number, contentHash: string, column: number, chunk: number) => `col:${roundTag(round, contentHash)}:${column}:${chunk}`;
/** The experiments' KV mirror the hot path reads (workers/search/experiments/live.ts). */
export const SERVING_CONFIG_KEY = "config:serving";

// ---- Hashes -----------------------------------------------------------------

/** sha-256 as hex through Web Crypto: the same in workerd and Node (block addresses, keyword cache keys, token comparison). */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/**
 * The admin token's floor: `npm start` refuses a shorter ADMIN_TOKEN and the
 * worker answers its admin routes 503 with one, so a guessable token never
 * guards the admin API (32 characters: e.g. 16 random bytes as hex).
 */
export const ADMIN_TOKEN_LIMITS = { minChars: 32 } as const;

/**
 * Compares a presented token with the expected one in constant time: both
 * are hashed first, so neither the expected token's length nor a matching
 * prefix shows in the time taken (the worker's admin and judge tokens, the
 * reward service's).
 */
export async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const digest = async (text: string) => new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  const [a, b] = await Promise.all([digest(given), digest(expected)]);
  let diff = 0;
  for (let j = 0; j < a.length; j++) diff |= (a[j] as number) ^ (b[j] as number);
  return diff === 0;
}

/** A block's content address: sha-256 of its bytes, first 32 hex digits. */
export async function blockHash(data: Uint8Array): Promise<string> {
  return (await sha256Hex(data)).slice(0, 32);
}
