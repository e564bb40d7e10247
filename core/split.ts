/**
 * The seeded train/dev split of the queries (the paper splits along queries
 * only and keeps the full item universe, §3.1). Deterministic for a seed and
 * independent of input order: queries are ranked by a seeded hash of their id.
 */
import { fmix32 } from "./shard.js";
export const SPLIT_DEFAULTS = { seed: 42, devQueries: 50 } as const;

export interface Split {
  readonly seed: number;
  readonly devQueries: number;
  readonly train: readonly string[];
  readonly dev: readonly string[];
}

/** 32-bit FNV-1a of the seed and the id, then a murmur finaliser for spread. */
export function seededHash(seed: number, id: string): number {
  let h = 0x811c9dc5 ^ seed;
  for (let j = 0; j < id.length; j++) {
    h ^= id.charCodeAt(j);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

export function splitQueries(queryIds: readonly string[], seed: number = SPLIT_DEFAULTS.seed, devQueries: number = SPLIT_DEFAULTS.devQueries): Split {
  if (new Set(queryIds).size !== queryIds.length) throw new RangeError("duplicate query ids");
  if (!Number.isInteger(devQueries) || devQueries < 0 || devQueries > queryIds.length) {
    throw new RangeError(`devQueries must be in 0..${queryIds.length}, got ${devQueries}`);
  }
  const ranked = [...queryIds].sort((a, b) => seededHash(seed, a) - seededHash(seed, b) || (a < b ? -1 : 1));
  const dev = new Set(ranked.slice(0, devQueries));
  return {
    seed,
    devQueries,
    train: queryIds.filter((q) => !dev.has(q)),
    dev: queryIds.filter((q) => dev.has(q)),
  };
}
