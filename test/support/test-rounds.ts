/** The rounds the workerd tests receive as a JSON binding (built in Node by worker-fixtures.ts). */
import type { WireRound } from "./wire-round.js";

export interface TestRounds {
  /** Round 0 of the synthetic catalogue: extractor query generator. */
  readonly synthetic0: WireRound;
  /** Round 1: the same index, with an LLM query generator and its embedded policy. */
  readonly synthetic1: WireRound;
  /** Round 0 of the synthetic catalogue with the text ranker, and with the blend 4:1 (core/ranker.ts). */
  readonly syntheticText: WireRound;
  readonly syntheticBlend: WireRound;
  /** WANDS round 0, when COGR_DATA is set. */
  readonly wands0: WireRound | null;
  /** WANDS round 0 with the blend 4:1 ranker, when COGR_DATA is set. */
  readonly wandsBlend: WireRound | null;
  /** WANDS query strings for the equality test. */
  readonly wandsQueries: string[];
  /** A synthetic round trained by the lexical backend (published as round 7). */
  readonly trained: WireRound;
  /** Query → the keywords its query policy gives in Node. */
  readonly policyKeywords: Record<string, string[]>;
  /** The trained round with its policy's vocabulary tail shipped apart (published as round 8). */
  readonly tailed: WireRound;
  /** Node's answers with the whole tail, and the head's alone, for policy queries, misspellings and tail keywords. */
  readonly tailedAnswers: ReadonlyArray<{ query: string; keywords: string[]; corrected: string | null; headOnly: string[] }>;
}
