/**
 * The two rewards of Phase 2 (§2.3).
 *
 * Query side, eq. 2.2: F1 of I_ret(q) against rel(q), 0 over budget.
 * Item side, eq. 2.3: the change in Σ_q F1 when item i's reference keywords
 * are replaced by a candidate S_i, −1 over budget, computed incrementally as
 * App. B.3 describes from cached per-query counts, Q_ref(i) and the frozen
 * query-side inverted index.
 */

import { getOrInsert } from "./collections.js";
import { f1FromCounts } from "./metrics.js";
import { normalizeKeyword } from "./normalize.js";
import { type ItemRewardSource, type ItemRewardTables, isRelevant, itemRewardTables, queriesOf, referenceTotalOf, weightOf } from "./reward-tables.js";

export const REWARD_LIMITS = { kMax: 30 } as const;

/** Eq. 2.2. `keywordCount` is |S_q| as generated (before adding q itself). */
export function queryReward(keywordCount: number, nRet: number, nTp: number, nRel: number, kMax: number = REWARD_LIMITS.kMax): number {
  return keywordCount > kMax ? 0 : f1FromCounts(nTp, nRet, nRel);
}

/** keyword → sorted ordinals of the sets that contain it. */
export function postingsOf(sets: ReadonlyArray<readonly string[]>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  sets.forEach((set, ordinal) => {
    for (const k of set) {
      const l = getOrInsert(out, k, (): number[] => []);
      if (l[l.length - 1] !== ordinal) l.push(ordinal);
    }
  });
  return out;
}

/** App. B.3's input with every item's reference set S_i ∪ {i} (normalised) at once; reward-tables.ts's source takes them one at a time. */
export interface ItemRewardInput extends ItemRewardSource {
  readonly itemSets: ReadonlyArray<readonly string[]>;
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * App. B.3: one context per item-side round. Construction runs retrieval
 * once for every item's reference set (core/reward-tables.ts); each `reward`
 * call then costs one lookup against the frozen query index plus O(1) per
 * affected query. Made from the input, or from tables built once and shared
 * (the data-parallel GRPO workers, training/parallel/item-phase.ts): the same
 * rewards either way.
 */
export class ItemRewardContext {
  private readonly tables: ItemRewardTables;
  private readonly keywordId: Map<string, number>;
  private readonly refMark: Int32Array;
  private readonly candMark: Int32Array;
  private readonly qRef: number[] = [];
  private readonly qCand: number[] = [];
  private epoch = 0;

  constructor(source: ItemRewardInput | ItemRewardTables) {
    this.tables = "postingStart" in source ? source : itemRewardTables(source, (i) => source.itemSets[i] ?? NONE);
    this.keywordId = new Map(this.tables.keywords.map((k, id) => [k, id]));
    this.refMark = new Int32Array(this.tables.nRel.length);
    this.candMark = new Int32Array(this.tables.nRel.length);
  }

  /** Σ_q F1_ref(q): R_old of eq. 2.3. */
  referenceTotal(): number {
    return referenceTotalOf(this.tables);
  }

  /** Eq. 2.3 for item `item` and candidate keywords S_i (raw; normalised here). */
  reward(item: number, candidate: readonly string[], kMax: number = REWARD_LIMITS.kMax): number {
    const t = this.tables;
    if (!(item >= 0 && item < t.names.length)) throw new RangeError(`item ${item} is not one of the ${t.names.length} items`);
    const cand = new Set<string>();
    for (const k of candidate) {
      const n = normalizeKeyword(k);
      if (n !== "") cand.add(n);
    }
    if (cand.size > kMax) return -1;
    const nameId = t.names[item] ?? -1;
    if (nameId >= 0) cand.add(t.keywords[nameId] as string);
    const candIds: number[] = [];
    for (const k of cand) {
      const id = this.keywordId.get(k);
      if (id !== undefined) candIds.push(id);
    }
    const epoch = ++this.epoch;
    const own = t.itemKeywords.subarray(t.itemStart[item] as number, t.itemStart[item + 1] as number);
    const qRef = queriesOf(t, own, this.refMark, epoch, this.qRef);
    const qCand = queriesOf(t, candIds, this.candMark, epoch, this.qCand);
    let delta = 0;
    for (const q of qCand) {
      const w = weightOf(t, q, item);
      if (this.refMark[q] === epoch || w === 0) continue; // retrieved before and after, or weightless: unchanged
      const r = isRelevant(t, item, q) ? 1 : 0;
      const tp = t.nTp[q] as number;
      const ret = t.nRet[q] as number;
      const nRel = t.nRel[q] as number;
      delta += f1FromCounts(tp + r, ret + w, nRel) - f1FromCounts(tp, ret, nRel);
    }
    for (const q of qRef) {
      const w = weightOf(t, q, item);
      if (this.candMark[q] === epoch || w === 0) continue;
      const r = isRelevant(t, item, q) ? 1 : 0;
      const tp = t.nTp[q] as number;
      const ret = t.nRet[q] as number;
      const nRel = t.nRel[q] as number;
      delta += f1FromCounts(tp - r, ret - w, nRel) - f1FromCounts(tp, ret, nRel);
    }
    return delta;
  }
}
