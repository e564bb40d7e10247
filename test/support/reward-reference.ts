/**
 * App. B.3's item reward as it was written before its state became flat
 * tables (core/reward-tables.ts): a Map query index, a Set of queries per
 * relevant item, string arrays per item. Kept for test/core/reward.test.ts,
 * which checks the tables give its rewards bit for bit (a change in the
 * order of the floating-point sums would change every trained round).
 * It repeats the code it checks on purpose.
 */
import { f1FromCounts } from "../../core/metrics.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { type ItemRewardInput, postingsOf, REWARD_LIMITS } from "../../core/reward.js";

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

export class ReferenceItemReward {
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
        (this.relQueries.get(i) ?? this.relQueries.set(i, new Set<number>()).get(i))?.add(q);
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
