/**
 * An isolate's word blocks kept decoded with their BM25 terms
 * (core/score-blocks.ts), so that the exhaustive ranking path looks hot
 * words' entries up instead of reading them on every search: a byte-budgeted
 * LRU, keyed by round, content hash and block.
 *
 * Making a block's terms costs about half again what reading it in place
 * does, so a block is only let in where it pays: while there is room, or when
 * it has been asked for more than twice as often lately as the entry it would
 * push out (TinyLFU's admission, Einziger et al. 2017, with a margin). A
 * working set of hot words larger than the budget then settles (the blocks
 * kept stay kept, the rest are read in place) instead of each search
 * replacing what the last one kept. The counts are halved every
 * `agingTouches` lookups, so a new round's words displace an old round's.
 */
import { type BlockTerms, type BlockTermsCache, blockTermsBytes } from "../../../core/score-blocks.js";
import { SERVING_LIMITS } from "../limits.js";
import type { RoundRef } from "./index-store.js";
import { ByteLru } from "./lru.js";

export const BLOCK_TERMS_ADMISSION = {
  /** A newcomer displaces the oldest entry only when asked for more than this many times as often. */
  frequencyRatio: 2,
  /** Lookups between two halvings of every count. */
  agingTouches: 50_000,
  /** Keys counted at most; past it the counts are halved at once (and zeros dropped). */
  countedKeysMax: 20_000,
} as const;

export class KeptBlockTerms {
  private readonly lru: ByteLru<BlockTerms>;
  private readonly counts = new Map<string, number>();
  private touches = 0;
  /** Blocks whose terms were made and kept since the isolate started (or the last clear). */
  admitted = 0;

  constructor(readonly budgetBytes: number = SERVING_LIMITS.blockTermsLruBytes) {
    this.lru = new ByteLru<BlockTerms>(budgetBytes, (key, v) => entryBytes(key, v.items.length));
  }

  /** Bytes held, and blocks kept. */
  get bytes(): number {
    return this.lru.bytes;
  }

  get size(): number {
    return this.lru.size;
  }

  clear(): void {
    this.lru.clear();
    this.counts.clear();
    this.touches = 0;
    this.admitted = 0;
  }

  /** The cache core reads for one round: its keys carry the round and its content hash, so rounds never share a block. */
  forRound(round: Pick<RoundRef, "round" | "contentHash">): BlockTermsCache {
    const prefix = `${round.round}:${round.contentHash}:`;
    return {
      get: (key) => this.get(prefix + key),
      admits: (key, entries) => this.admits(prefix + key, entries),
      set: (key, terms) => {
        this.admitted++;
        this.lru.set(prefix + key, terms);
      },
    };
  }

  private get(key: string): BlockTerms | undefined {
    this.count(key);
    return this.lru.get(key);
  }

  private admits(key: string, entries: number): boolean {
    const bytes = entryBytes(key, entries);
    if (bytes > this.budgetBytes) return false;
    if (this.lru.bytes + bytes <= this.budgetBytes) return true;
    const victim = this.lru.oldest;
    return victim !== undefined && (this.counts.get(key) ?? 0) > BLOCK_TERMS_ADMISSION.frequencyRatio * (this.counts.get(victim) ?? 0);
  }

  private count(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (++this.touches >= BLOCK_TERMS_ADMISSION.agingTouches || this.counts.size > BLOCK_TERMS_ADMISSION.countedKeysMax) this.age();
  }

  private age(): void {
    this.touches = 0;
    for (const [k, n] of this.counts) {
      if (n > 1) this.counts.set(k, n >> 1);
      else this.counts.delete(k);
    }
  }
}

/** An entry's bytes: its key (UTF-16) and its terms. */
const entryBytes = (key: string, entries: number) => key.length * 2 + blockTermsBytes(entries);
