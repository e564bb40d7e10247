/**
 * A generator's answer → its keyword set. One parser for every consumer:
 * the worker, the indexer, the evaluator and the verl reward (whose Python
 * shim, training/verl/cogr_reward.py, mirrors this function line for line;
 * test/training/verl-shim.test.ts runs both on the same cases).
 *
 * Strict first: a JSON array of strings (what the SFT targets teach). Else
 * tolerant: items separated by newlines, commas or semicolons, with list
 * bullets ("-", "*", "•", "1.", "2)") stripped. Every item is normalised
 * (core/normalize.ts); empty items and items over 100 UTF-16 units are
 * dropped; duplicates keep their first position.
 */
import { normalizeKeyword } from "./normalize.js";
import { REWARD_LIMITS } from "./reward.js";

export const ANSWER_LIMITS = { keywordChars: 100 } as const;

const BULLET = /^\s*(?:[-*•]|[0-9]+[.)])\s+/;
const SEPARATORS = /[\n,;]+/;

function strictArray(trimmed: string): unknown[] | null {
  if (!trimmed.startsWith("[")) return null;
  try {
    const v = JSON.parse(trimmed) as unknown;
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * Distinct normalised keywords of an answer, in order, at most `limit`.
 * Serving and indexing cap at K_max; the rewards pass Infinity, so that an
 * answer over budget is seen as such (eq. 2.2 and 2.3 give it 0 and −1).
 */
export function parseKeywords(text: string, limit: number = REWARD_LIMITS.kMax): string[] {
  const trimmed = text.trim();
  const parts = strictArray(trimmed) ?? trimmed.split(SEPARATORS).map((p) => p.replace(BULLET, ""));
  const out = new Set<string>();
  for (const p of parts) {
    if (out.size >= limit) break;
    if (typeof p !== "string") continue;
    const k = normalizeKeyword(p);
    if (k !== "" && k.length <= ANSWER_LIMITS.keywordChars) out.add(k);
  }
  return [...out];
}

/** The form the SFT targets are written in, so that the strict parse reads them back exactly. */
export function formatKeywords(keywords: readonly string[]): string {
  return JSON.stringify(keywords);
}
