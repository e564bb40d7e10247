/**
 * Spam and fraud rules over user keys (issue 23 §3), pure. A key's feedback
 * on one (query, item) counts once; a key is discounted when
 *
 * - it repeats one result's feedback: ≥ repeatMin feedback events and ≥
 *   repeatRatio per distinct (query, item, kind) it sent (the bot that
 *   clicks one item thousands of times; a buyer's click, add-to-cart and
 *   purchase are three kinds, not a repeat): weight 0, so it moves nothing;
 * - it clicks every result: in ≥ allClickedShare of its searches (at least
 *   allClickedMin of them, each showing ≥ allClickedMinShown) every shown
 *   item got feedback: weight 0;
 * - its click rate (distinct clicked results per search) is over
 *   rateOverMedian × the median key's rate: weight rateOverMedian × median /
 *   rate, so it counts as a key at the limit would.
 */

export const SPAM_RULES = {
  repeatMin: 5,
  repeatRatio: 3,
  allClickedShare: 0.5,
  allClickedMin: 2,
  allClickedMinShown: 3,
  rateOverMedian: 5,
  /** A median of 0 (most keys never click) would flag every clicker: the limit is at least this many clicks a search. */
  rateFloor: 1,
} as const;

export type SpamReason = "repeated-feedback" | "clicks-every-result" | "click-rate";

export interface KeyStats {
  searches: number;
  /** Feedback events, every one (duplicates included). */
  feedback: number;
  /** Distinct (query, item) pairs it gave feedback on. */
  distinctPairs: number;
  /** Distinct (query, item, kind) it gave feedback on. */
  distinctFeedback: number;
  /** Searches in which every shown result got feedback. */
  allClicked: number;
}

export interface KeyVerdict {
  readonly weight: number;
  readonly reason: SpamReason | null;
}

export function median(values: Float64Array): number {
  if (values.length === 0) return 0;
  const s = Float64Array.from(values).sort();
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

export const clickRate = (k: KeyStats): number => (k.searches === 0 ? 0 : k.distinctPairs / k.searches);

/** The weight of one key's evidence, given the median key's click rate. */
export function verdict(k: KeyStats, medianRate: number): KeyVerdict {
  if (k.feedback >= SPAM_RULES.repeatMin && k.feedback >= SPAM_RULES.repeatRatio * Math.max(1, k.distinctFeedback))
    return { weight: 0, reason: "repeated-feedback" };
  if (k.allClicked >= SPAM_RULES.allClickedMin && k.allClicked >= SPAM_RULES.allClickedShare * k.searches) return { weight: 0, reason: "clicks-every-result" };
  const limit = Math.max(SPAM_RULES.rateFloor, SPAM_RULES.rateOverMedian * medianRate);
  const rate = clickRate(k);
  if (rate > limit) return { weight: limit / rate, reason: "click-rate" };
  return { weight: 1, reason: null };
}
