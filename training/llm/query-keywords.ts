/**
 * A round's precomputed query keywords (`query-keywords.jsonl`, one
 * `{ "query", "keywords", "source" }` a line, the query normalised): written
 * by `npm run index --queries …`, read by `npm run eval` for LLM rounds, by
 * the verl reward service as the frozen query-side index (eq. 2.3), and by
 * `npm run publish` to warm the worker's keyword cache.
 */
import { normalizeKeyword } from "../../core/normalize.js";
import { artifactsDir, readManifest, readRoundFile, roundDir } from "../round-artifact.js";

export const QUERY_KEYWORDS_FILE = "query-keywords.jsonl";

export interface QueryKeywordsLine {
  readonly query: string;
  readonly keywords: readonly string[];
  /** "llm", or "policy" where the model could not answer and the embedded policy did. */
  readonly source: "llm" | "policy";
}

export function formatQueryKeywords(lines: readonly QueryKeywordsLine[]): string {
  return lines.map((l) => JSON.stringify(l)).join("\n") + (lines.length > 0 ? "\n" : "");
}

/** Normalised query → its line; an empty map when the round has none. */
export function readQueryKeywords(round: number, root = artifactsDir()): Map<string, QueryKeywordsLine> {
  const out = new Map<string, QueryKeywordsLine>();
  if (!readManifest(roundDir(round, root)).checksums[QUERY_KEYWORDS_FILE]) return out;
  for (const line of readRoundFile(round, QUERY_KEYWORDS_FILE, root).split("\n")) {
    if (line === "") continue;
    const l = JSON.parse(line) as QueryKeywordsLine;
    out.set(normalizeKeyword(l.query), l);
  }
  return out;
}
