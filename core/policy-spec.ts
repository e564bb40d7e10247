/**
 * The serialised lexical policy, as a round ships its query generator. The
 * worker loads it with `loadPolicy` and decodes deterministically.
 */
import { FEATURES, newParams, POLICY_FORMAT, POLICY_VERSION, type PolicyParams, type PolicyVocabulary, WEIGHT_COUNT } from "./policy.js";

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
}

export function policySpec(side: "query" | "item", params: PolicyParams, vocab: PolicyVocabulary, kMax: number): LexicalPolicySpec {
  const byKey = <V>(m: ReadonlyMap<string, V>) => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return {
    format: POLICY_FORMAT,
    version: POLICY_VERSION,
    side,
    kMax,
    features: FEATURES,
    weights: [...params.weights],
    keywordWeights: byKey(params.keywordWeights).filter(([, w]) => w !== 0),
    oppositeCount: vocab.oppositeCount,
    oppositeDf: byKey(vocab.oppositeDf),
    expansions: byKey(vocab.expansions),
    profiles: byKey(vocab.profiles ?? new Map()),
  };
}

export function loadPolicy(spec: LexicalPolicySpec): { params: PolicyParams; vocab: PolicyVocabulary } {
  if (spec?.format !== POLICY_FORMAT) throw new Error(`not a ${POLICY_FORMAT} artifact`);
  if (spec.version !== POLICY_VERSION) throw new Error(`unsupported ${POLICY_FORMAT} version ${spec.version} (this build reads ${POLICY_VERSION})`);
  if (spec.weights.length !== WEIGHT_COUNT || spec.features.length !== FEATURES.length || spec.features.some((f, j) => f !== FEATURES[j])) {
    throw new Error(`${POLICY_FORMAT}: feature set differs from this build's`);
  }
  const params = newParams();
  params.weights.set(spec.weights);
  for (const [k, w] of spec.keywordWeights) params.keywordWeights.set(k, w);
  return {
    params,
    vocab: { oppositeCount: spec.oppositeCount, oppositeDf: new Map(spec.oppositeDf), expansions: new Map(spec.expansions), profiles: new Map(spec.profiles) },
  };
}
