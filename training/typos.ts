/**
 * Seeded misspellings for measuring typo tolerance (issue 25 §1): one typo
 * in one word of each query, as shoppers make them. The edit is one of the
 * four that optimal string alignment counts as 1 (core/edit-distance.ts):
 * a letter dropped, doubled or inserted, replaced by a neighbour on the
 * keyboard, or two neighbours swapped. Only words of at least
 * TYPO_LIMITS.minWordChars letters are touched, as the corrector only mends
 * those; a query without one is copied as it is (and counted).
 */
import { keywordWords, normalizeKeyword } from "../core/normalize.js";
import type { Rng } from "../core/rng.js";
import { TYPO_LIMITS } from "../core/typos.js";

/** QWERTY neighbours: the substitutions a finger slip makes. */
const KEYBOARD = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
function neighbours(ch: string): string[] {
  const out: string[] = [];
  KEYBOARD.forEach((row, r) => {
    const c = row.indexOf(ch);
    if (c < 0) return;
    for (const [dr, dc] of [
      [0, -1],
      [0, 1],
      [-1, 0],
      [1, 0],
      [-1, 1],
      [1, -1],
    ] as const) {
      const x = KEYBOARD[r + dr]?.[c + dc];
      if (x) out.push(x);
    }
  });
  return out.length > 0 ? out : ["e"];
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)] as T;

/** One typo in one word of w (letters only), different from w. */
export function misspellWord(w: string, rng: Rng): string {
  for (let tries = 0; tries < 16; tries++) {
    // Typos fall inside the word more than at its first letter (people rarely miss the first).
    const i = 1 + Math.floor(rng.next() * (w.length - 1));
    const kind = Math.floor(rng.next() * 4);
    const ch = w[i] as string;
    let out: string;
    if (kind === 0) out = w.slice(0, i) + w.slice(i + 1);
    else if (kind === 1) out = w.slice(0, i) + pick(rng, neighbours(ch)) + w.slice(i);
    else if (kind === 2) out = w.slice(0, i) + pick(rng, neighbours(ch)) + w.slice(i + 1);
    else out = i + 1 < w.length ? w.slice(0, i) + (w[i + 1] as string) + ch + w.slice(i + 2) : w.slice(0, i - 1) + ch + (w[i - 1] as string);
    if (out !== w) return out;
  }
  return `${w}${w[w.length - 1]}`;
}

/** The query with one typo in one of its words long enough to mend, or null when it has none. */
export function misspellQuery(text: string, rng: Rng): string | null {
  const words = keywordWords(normalizeKeyword(text));
  const eligible = words.flatMap((w, j) => (w.length >= TYPO_LIMITS.minWordChars && /^[a-z]+$/.test(w) ? [j] : []));
  if (eligible.length === 0) return null;
  const j = pick(rng, eligible);
  return words.map((w, k) => (k === j ? misspellWord(w, rng) : w)).join(" ");
}
