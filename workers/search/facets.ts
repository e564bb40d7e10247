/**
 * Filters and facets in the worker: the round's facet columns (core/columns.ts)
 * read from KV into an isolate LRU, compiled into core's filter predicate,
 * and counted over the filtered I_ret(q) (core/filters.ts). Nothing here
 * scores or reads an item row.
 */
import { type Codes, type ColumnsMeta, chunkCount, joinChunks, parseColumnsMeta } from "../../core/columns.js";
import { columnChunkKey, columnsMetaKey, type RoundRef } from "../../core/contract.js";
import { compileFilters, countFacet, type FacetValue, FilterError, type FilterRequest, facetColumn, filterPredicate } from "../../core/filters.js";
import { Problem } from "./errors.js";
import { SERVING_LIMITS } from "./limits.js";
import { kvGetMany } from "./store/kv-store.js";
import { ByteLru } from "./store/lru.js";

/** What a search asks beyond the query: filters (AND over fields) and the facets to count. */
export interface Narrowing {
  readonly filters: readonly FilterRequest[];
  readonly facets: readonly string[];
}

export const NO_NARROWING: Narrowing = { filters: [], facets: [] };
export const narrows = (n: Narrowing) => n.filters.length > 0 || n.facets.length > 0;

/** One isolate-wide LRU for both the dictionaries and the columns' codes, in bytes. */
export const columnLru = new ByteLru<ColumnsMeta | Codes>(SERVING_LIMITS.columnLruBytes, (key, v) =>
  "byteLength" in v ? v.byteLength + key.length * 2 + 64 : v.columns.reduce((s, c) => s + c.values.reduce((t, x) => t + x.length * 2 + 16, 0), 256),
);

/** The narrowing ready to apply: the filter's predicate (null: none) and each facet's column and codes. */
export interface PreparedNarrowing {
  readonly keep: ((ordinal: number) => boolean) | null;
  readonly facets: ReadonlyArray<{ readonly name: string; readonly column: string }>;
  readonly meta: ColumnsMeta;
  readonly codes: ReadonlyMap<string, Codes>;
}

const missing = (round: RoundRef) =>
  new Problem(
    "unavailable",
    `Round ${round.round}'s facet columns could not be read; try again shortly (a round published before them gets them on its next publish).`,
  );

async function columnsMeta(kv: KVNamespace, round: RoundRef): Promise<ColumnsMeta> {
  const key = columnsMetaKey(round.round, round.contentHash);
  const hit = columnLru.get(key);
  if (hit && !("byteLength" in hit)) return hit;
  let text: string | null = null;
  try {
    text = await kv.get(key, "text");
  } catch (e) {
    console.warn("KV facet column read failed:", (e as Error).message);
  }
  if (text === null) throw missing(round);
  const meta = parseColumnsMeta(text);
  columnLru.set(key, meta);
  return meta;
}

/** The codes of the named columns (those the round lacks are left out: no item has a value there). */
async function columnCodes(kv: KVNamespace, round: RoundRef, meta: ColumnsMeta, names: readonly string[]): Promise<Map<string, Codes>> {
  const out = new Map<string, Codes>();
  const wanted: Array<{ name: string; index: number; key: string }> = [];
  for (const name of new Set(names)) {
    const index = meta.columns.findIndex((c) => c.name === name);
    if (index < 0) continue;
    const key = `${columnsMetaKey(round.round, round.contentHash)}:${name}`;
    const hit = columnLru.get(key);
    if (hit && "byteLength" in hit) out.set(name, hit);
    else wanted.push({ name, index, key });
  }
  if (wanted.length === 0) return out;
  const keys = wanted.flatMap((w) => Array.from({ length: chunkCount(meta) }, (_, k) => columnChunkKey(round.round, round.contentHash, w.index, k)));
  const got = await kvGetMany<string>(kv, keys, "text", "KV facet column read failed:");
  for (const w of wanted) {
    const chunks = Array.from({ length: chunkCount(meta) }, (_, k) => got.get(columnChunkKey(round.round, round.contentHash, w.index, k)));
    if (chunks.some((c) => typeof c !== "string")) throw missing(round);
    const codes = joinChunks(meta, meta.columns[w.index] as ColumnsMeta["columns"][number], chunks as string[]);
    columnLru.set(w.key, codes);
    out.set(w.name, codes);
  }
  return out;
}

/** Reads what the narrowing needs and compiles it; a bad filter or facet name is a 400 naming its parameter. */
export async function prepareNarrowing(kv: KVNamespace, round: RoundRef, n: Narrowing): Promise<PreparedNarrowing> {
  const meta = await columnsMeta(kv, round);
  try {
    const filter = compileFilters(meta, n.filters);
    const facets = n.facets.map((name) => ({ name, column: facetColumn(meta, name, n.filters) }));
    const codes = await columnCodes(kv, round, meta, [...filter.columns, ...facets.map((f) => f.column)]);
    return { keep: n.filters.length > 0 ? filterPredicate(filter, codes) : null, facets, meta, codes };
  } catch (e) {
    if (e instanceof FilterError) throw new Problem("invalidParameter", e.message, { parameter: e.parameter });
    throw e;
  }
}

/** Each asked facet's top values over the (filtered) I_ret(q). */
export function facetCounts(p: PreparedNarrowing, retrieved: Uint32Array): Record<string, FacetValue[]> {
  const out: Record<string, FacetValue[]> = {};
  for (const f of p.facets) out[f.name] = countFacet(p.meta, f.column, p.codes.get(f.column), retrieved);
  return out;
}
