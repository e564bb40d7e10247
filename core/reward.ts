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

/** Ordinals matched by a keyword set through a keyword → ordinals index, deduplicated. */
function matchedBy(keywords: Iterable<string>, index: ReadonlyMap<string, readonly number[]>, mark: Int32Array, epoch: number): number[] {
  const out: number[] = [];
  for (const k of keywords) {
    const l = index.get(k);
    if (!l) continue;
    for (const o of l) {
      if (mark[o] !== epoch) {
        mark[o] = epoch;
        out.push(o);
      }
    }
  }
  return out;
}

export interface ItemRewardInput {
  /** Reference S_i ∪ {i} per item ordinal, normalised. */
  readonly itemSets: ReadonlyArray<readonly string[]>;
  /** Normalised item names ({i}), always part of a candidate set too. */
  readonly itemNames: readonly string[];
  /** Frozen S_q ∪ {q} per query ordinal (the queries of Q: training queries), normalised. */
  readonly querySets: ReadonlyArray<readonly string[]>;
  /** rel(q) per query ordinal, as item ordinals. */
  readonly relevant: ReadonlyArray<ReadonlySet<number>>;
  /**
   * Click supervision: per query ordinal, the items judged (undefined: all). An unjudged item is not known to be
   * irrelevant: it counts `unjudgedWeight` (default 0: missing) in that query's n_ret, a judged one 1.
   */
  readonly judged?: ReadonlyArray<ReadonlySet<number> | undefined>;
  readonly unjudgedWeight?: number;
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * The reward input with every item keyword no query set holds left out, and
 * every name no query set holds blanked: a keyword outside the frozen query
 * index matches no query (matchedBy skips it), so ItemRewardContext gives the
 * same rewards. At a million items the item sets are ten million strings;
 * what the training queries can see of them is a few thousand, so each
 * data-parallel worker's copy shrinks from gigabytes to megabytes.
 */
export function compactRewardInput(input: ItemRewardInput): ItemRewardInput {
  return compactRewardInputOf(input, (i) => input.itemSets[i] ?? NONE);
}

/**
 * compactRewardInput over sets made one item at a time (`setOf(i)` for each
 * of the input's names): at a million items the whole S_i ∪ {i} is hundreds
 * of megabytes that are never needed at once.
 */
export function compactRewardInputOf(input: Omit<ItemRewardInput, "itemSets">, setOf: (i: number) => readonly string[]): ItemRewardInput {
  const seen = new Set<string>();
  for (const set of input.querySets) for (const k of set) seen.add(k);
  const { itemSets: _whole, ...rest } = input as ItemRewardInput;
  return {
    ...rest,
    itemSets: Array.from(input.itemNames, (_, i) => {
      const kept = setOf(i).filter((k) => seen.has(k));
      return kept.length === 0 ? NONE : kept;
    }),
    itemNames: input.itemNames.map((n) => (seen.has(n) ? n : "")),
  };
}

/**
 * App. B.3: one context per item-side round. Construction runs retrieval
 * once for every query; each `reward` call then costs one lookup against the
 * frozen query index plus O(1) per affected query.
 */
export class ItemRewardContext {
  /** Fractional with click supervision: an unjudged item counts `unjudgedWeight`. */
  readonly nRet: Float64Array;
  readonly nTp: Int32Array;
  readonly nRel: Int32Array;
  private readonly queryIndex: Map<string, number[]>;
  private readonly relQueries: Map<number, Set<number>>;
  private readonly refMark: Int32Array;
  private readonly candMark: Int32Array;
  private epoch = 0;

  constructor(private readonly input: ItemRewardInput) {
    const nQ = input.querySets.length;
    this.queryIndex = postingsOf(input.querySets);
    this.nRet = new Float64Array(nQ);
    this.nTp = new Int32Array(nQ);
    this.nRel = new Int32Array(nQ);
    this.relQueries = new Map();
    input.relevant.forEach((rel, q) => {
      this.nRel[q] = rel.size;
      for (const i of rel) {
        getOrInsert(this.relQueries, i, () => new Set<number>()).add(q);
      }
    });
    // n_ret and n_tp under the reference index: each item adds itself to the queries of Q_ref(i).
    this.refMark = new Int32Array(nQ);
    this.candMark = new Int32Array(nQ);
    input.itemSets.forEach((set, item) => {
      const rel = this.relQueries.get(item);
      for (const q of matchedBy(set, this.queryIndex, this.refMark, ++this.epoch)) {
        this.nRet[q] = (this.nRet[q] as number) + this.weight(q, item);
        if (rel?.has(q)) this.nTp[q] = (this.nTp[q] as number) + 1;
      }
    });
  }

  /** What item i weighs in query q's n_ret: 1 when judged (or every item is), else the unjudged weight. */
  private weight(q: number, item: number): number {
    const j = this.input.judged?.[q];
    return j === undefined || j.has(item) ? 1 : (this.input.unjudgedWeight ?? 0);
  }

  /** Σ_q F1_ref(q): R_old of eq. 2.3. */
  referenceTotal(): number {
    let s = 0;
    for (let q = 0; q < this.nRet.length; q++) s += f1FromCounts(this.nTp[q] as number, this.nRet[q] as number, this.nRel[q] as number);
    return s;
  }

  /** Eq. 2.3 for item `item` and candidate keywords S_i (raw; normalised here). */
  reward(item: number, candidate: readonly string[], kMax: number = REWARD_LIMITS.kMax): number {
    const cand = new Set<string>();
    for (const k of candidate) {
      const n = normalizeKeyword(k);
      if (n !== "") cand.add(n);
    }
    if (cand.size > kMax) return -1;
    const name = this.input.itemNames[item];
    if (name) cand.add(name);
    const epoch = ++this.epoch;
    const qRef = matchedBy(this.input.itemSets[item] ?? [], this.queryIndex, this.refMark, epoch);
    const qCand = matchedBy(cand, this.queryIndex, this.candMark, epoch);
    const rel = this.relQueries.get(item);
    let delta = 0;
    for (const q of qCand) {
      const w = this.weight(q, item);
      if (this.refMark[q] === epoch || w === 0) continue; // retrieved before and after, or weightless: unchanged
      const r = rel?.has(q) ? 1 : 0;
      const tp = this.nTp[q] as number;
      const ret = this.nRet[q] as number;
      const nRel = this.nRel[q] as number;
      delta += f1FromCounts(tp + r, ret + w, nRel) - f1FromCounts(tp, ret, nRel);
    }
    for (const q of qRef) {
      const w = this.weight(q, item);
      if (this.candMark[q] === epoch || w === 0) continue;
      const r = rel?.has(q) ? 1 : 0;
      const tp = this.nTp[q] as number;
      const ret = this.nRet[q] as number;
      const nRel = this.nRel[q] as number;
      delta += f1FromCounts(tp - r, ret - w, nRel) - f1FromCounts(tp, ret, nRel);
    }
    return delta;
  }
}
