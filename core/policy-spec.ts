/**
 * The serialised lexical policy, as a round ships its query generator. The
 * worker loads it with `loadPolicy` and decodes deterministically.
 */
import { HINT_LIMITS } from "./hints.js";
import { POLICY_FORMAT, POLICY_VERSION, POLICY_VERSION_TAIL } from "./policy.js";
import type { PolicyVocabulary } from "./policy-candidates.js";
import { FEATURES, newParams, type PolicyParams, WEIGHT_COUNT } from "./policy-features.js";
import type { TailWord } from "./policy-tail.js";

export interface LexicalPolicySpec {
  readonly format: typeof POLICY_FORMAT;
  readonly version: number;
  readonly side: "query" | "item";
  readonly kMax: number;
  readonly features: readonly string[];
  /** WEIGHT_COUNT numbers: one per feature, then one per feature pair (policy.ts, pairWeightIndex). */
  readonly weights: readonly number[];
  readonly keywordWeights: ReadonlyArray<readonly [string, number]>;
  readonly oppositeCount: number;
  readonly oppositeDf: ReadonlyArray<readonly [string, number]>;
  readonly expansions: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, number]>]>;
  readonly profiles: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, number]>]>;
  /**
   * Set on a hinted query policy: its candidates see the first pass's top
   * `topK` items over the index it serves with (core/hints.ts), so it runs
   * only beside that index.
   */
  readonly hints?: { readonly topK: number };
  /**
   * Set on a served policy whose vocabulary has a tail (core/policy-tail.ts):
   * its entries ship apart, in `buckets` KV values keyed by tailBucketOf, and
   * are read per query. Such a spec is version POLICY_VERSION_TAIL, which a
   * build that would ignore the tail refuses.
   */
  readonly tail?: { readonly words: number; readonly buckets: number };
  /** The tail itself, in process only (training, eval): a round's writer moves it to its own file and sets `tail`. */
  readonly tailWords?: ReadonlyArray<readonly [string, TailWord]>;
}

export function policySpec(
  side: "query" | "item",
  params: PolicyParams,
  vocab: PolicyVocabulary,
  kMax: number,
  hints?: { readonly topK: number },
): LexicalPolicySpec {
  const byKey = <V>(m: ReadonlyMap<string, V>) => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return {
    format: POLICY_FORMAT,
    version: vocab.tail && vocab.tail.size > 0 ? POLICY_VERSION_TAIL : POLICY_VERSION,
    side,
    kMax,
    features: FEATURES,
    weights: [...params.weights],
    keywordWeights: byKey(params.keywordWeights).filter(([, w]) => w !== 0),
    oppositeCount: vocab.oppositeCount,
    oppositeDf: byKey(vocab.oppositeDf),
    expansions: byKey(vocab.expansions),
    profiles: byKey(vocab.profiles ?? new Map()),
    ...(hints ? { hints: { topK: hints.topK } } : {}),
    ...(vocab.tail && vocab.tail.size > 0 ? { tailWords: byKey(vocab.tail) } : {}),
  };
}

export function loadPolicy(spec: LexicalPolicySpec): { params: PolicyParams; vocab: PolicyVocabulary } {
  if (spec?.format !== POLICY_FORMAT) throw new Error(`not a ${POLICY_FORMAT} artifact`);
  if (spec.version !== POLICY_VERSION && spec.version !== POLICY_VERSION_TAIL) {
    throw new Error(`unsupported ${POLICY_FORMAT} version ${spec.version} (this build reads ${POLICY_VERSION} and ${POLICY_VERSION_TAIL})`);
  }
  if ((spec.tail !== undefined || spec.tailWords !== undefined) && spec.version !== POLICY_VERSION_TAIL) {
    throw new Error(`${POLICY_FORMAT}: a policy with a tail is version ${POLICY_VERSION_TAIL}`);
  }
  if (spec.weights.length !== WEIGHT_COUNT || spec.features.length !== FEATURES.length || spec.features.some((f, j) => f !== FEATURES[j])) {
    throw new Error(`${POLICY_FORMAT}: feature set differs from this build's`);
  }
  if (spec.hints !== undefined) {
    const k = spec.hints?.topK;
    if (spec.side !== "query") throw new Error(`${POLICY_FORMAT}: only a query policy takes search hints`);
    if (!Number.isInteger(k) || k < 1 || k > HINT_LIMITS.maxTopK)
      throw new Error(`${POLICY_FORMAT}: hints.topK must be an integer in [1, ${HINT_LIMITS.maxTopK}], got ${String(k)}`);
  }
  const params = newParams();
  params.weights.set(spec.weights);
  for (const [k, w] of spec.keywordWeights) params.keywordWeights.set(k, w);
  return {
    params,
    vocab: {
      oppositeCount: spec.oppositeCount,
      oppositeDf: new Map(spec.oppositeDf),
      expansions: new Map(spec.expansions),
      profiles: new Map(spec.profiles),
      ...(spec.tailWords ? { tail: new Map(spec.tailWords) } : {}),
    },
  };
}
