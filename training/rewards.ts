/**
 * The two reward environments of Phase 2 (§2.3), each frozen for a phase.
 * Query side: eq. 2.2 against the frozen item index. Item side: eq. 2.3 via
 * core's incremental ItemRewardContext (App. B.3), or the transposed F1 of
 * the Table-3 ablation.
 */

import type { KeywordIndex } from "../core/inverted-index.js";
import { f1FromCounts } from "../core/metrics.js";
import { normalizeKeyword } from "../core/normalize.js";
import { type ItemRewardContext, postingsOf, queryReward, REWARD_LIMITS } from "../core/reward.js";

/** Retrieval counts against a frozen keyword → ordinals index. */
export class FrozenIndex {
  private readonly postings: ReadonlyMap<string, ArrayLike<number>>;
  private readonly mark: Int32Array;
  private epoch = 0;

  constructor(sets: ReadonlyArray<readonly string[]>, postings?: { readonly keywords: ReadonlyMap<string, ArrayLike<number>>; readonly count: number }) {
    this.postings = postings?.keywords ?? postingsOf(sets);
    this.mark = new Int32Array(postings?.count ?? sets.length);
  }

  /**
   * The item side's frozen index read from the served index of the same item
   * sets, whose keyword postings are S_i ∪ {i} by ordinal already (sorted, as
   * postingsOf's): the query phase does not build it again (at 1M items a
   * second keyword → ordinals table over 30M entries). `ids` are the items'
   * ids by ordinal; an index in another order is refused.
   */
  static fromIndex(index: KeywordIndex, ids: readonly string[]): FrozenIndex {
    if (index.ids.length !== ids.length || index.ids.some((id, j) => id !== ids[j]))
      throw new Error("the served index's items are not in the training view's order");
    return new FrozenIndex([], { keywords: index.keywordPostings, count: ids.length });
  }

  /** The ordinals matched by any keyword. */
  retrieve(keywords: Iterable<string>): number[] {
    const e = ++this.epoch;
    const out: number[] = [];
    for (const k of keywords) {
      const p = this.postings.get(k);
      if (!p) continue;
      for (let j = 0; j < p.length; j++) {
        const o = p[j] as number;
        if (this.mark[o] !== e) {
          this.mark[o] = e;
          out.push(o);
        }
      }
    }
    return out;
  }
}

export interface RewardQuery {
  readonly text: string;
  readonly relevant: ReadonlySet<number>;
  /** Click supervision: the items judged; an unjudged item in I_ret counts `unjudgedWeight` (0: missing, 1: irrelevant). */
  readonly judged?: ReadonlySet<number>;
  readonly unjudgedWeight?: number;
}

/** Eq. 2.2 for a sampled S_q: F1 of I_ret over S_q ∪ {q}, 0 over K_max; with judged items, unjudged ones weigh less in |I_ret|. */
export function queryRewardFn(items: FrozenIndex, queries: readonly RewardQuery[]) {
  return (q: number, keywords: readonly string[]): number => {
    const query = queries[q] as RewardQuery;
    const ret = items.retrieve([...keywords, normalizeKeyword(query.text)]);
    let tp = 0;
    let n = 0;
    for (const o of ret) {
      if (query.relevant.has(o)) tp++;
      n += !query.judged || query.judged.has(o) ? 1 : (query.unjudgedWeight ?? 0);
    }
    return queryReward(keywords.length, n, tp, query.relevant.size, REWARD_LIMITS.kMax);
  };
}

/** Eq. 2.3 (App. B.3) for a sampled S_i. */
export function itemRewardFn(ctx: ItemRewardContext) {
  return (i: number, keywords: readonly string[]): number => ctx.reward(i, keywords);
}

/** Table 3's "transposed F1": item i as a query over the frozen query index, against the queries it is relevant to. */
export function transposedItemRewardFn(queryIndex: FrozenIndex, names: readonly string[], relevantQueries: ReadonlyMap<number, ReadonlySet<number>>) {
  return (i: number, keywords: readonly string[]): number => {
    if (keywords.length > REWARD_LIMITS.kMax) return 0;
    const ret = queryIndex.retrieve([...keywords, names[i] as string]);
    const rel = relevantQueries.get(i) ?? new Set<number>();
    let tp = 0;
    for (const q of ret) if (rel.has(q)) tp++;
    return f1FromCounts(tp, ret.length, rel.size);
  };
}
