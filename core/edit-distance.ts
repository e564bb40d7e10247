/**
 * Bounded edit distances for typo tolerance (core/typos.ts) and
 * typo-tolerant prefixes (suggestions).
 *
 * The distance is optimal string alignment (restricted Damerau–Levenshtein):
 * insertions, deletions, substitutions and transpositions of two adjacent
 * characters each cost 1, which covers the four typos people make in one
 * word ("armchiar", "armchar", "armchairr", "armchsir"). Both functions stop
 * as soon as every cell of a row exceeds `max`, so a far word costs a row or
 * two, not |a|·|b| cells.
 */

/** OSA distance between a and b, or max + 1 when it exceeds max. */
export function boundedDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  const n = b.length;
  let prev2 = new Int32Array(n + 1);
  let prev = Int32Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Int32Array(n + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        d = Math.min(d, (prev2[j - 2] as number) + 1);
      }
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  const d = prev[n] as number;
  return d > max ? max + 1 : d;
}

/**
 * The smallest OSA distance between `prefix` and any prefix of `word`, or
 * max + 1 when every one exceeds max: how far what the user has typed so far
 * is from the start of a suggestion ("armc" → "armchair" is 0, "amrc" is 1).
 */
export function prefixDistance(prefix: string, word: string, max: number): number {
  let best = max + 1;
  const lo = Math.max(0, prefix.length - max);
  const hi = Math.min(word.length, prefix.length + max);
  for (let len = lo; len <= hi; len++) {
    const d = boundedDistance(prefix, word.slice(0, len), max);
    if (d < best) best = d;
    if (best === 0) break;
  }
  return best;
}
