/** The rounds the workerd tests receive as a JSON binding (built in Node by worker-fixtures.ts). */
import type { WireRound } from "../../workers/publish/source.js";

export interface TestRounds {
  /** Round 0 of the synthetic catalogue: extractor query generator. */
  readonly synthetic0: WireRound;
  /** Round 1: the same index, with an LLM query generator and its embedded policy. */
  readonly synthetic1: WireRound;
  /** WANDS round 0, when COGR_DATA is set. */
  readonly wands0: WireRound | null;
  /** WANDS query strings for the equality test. */
  readonly wandsQueries: string[];
  /** A synthetic round trained by the lexical backend (published as round 7). */
  readonly trained: WireRound;
  /** Query → the keywords its query policy gives in Node. */
  readonly policyKeywords: Record<string, string[]>;
}
