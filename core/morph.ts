/**
 * A light English singulariser for the policies' matching features: "pillows"
 * and "pillow", "dining chairs" and "dining chair" are one keyword to a user,
 * but two to the inverted index, which matches whole normalised keywords
 * (§2.1). The generators, not the index, bridge the two: candidates and
 * features compare singular forms, and the keyword emitted is the opposite
 * index's own spelling. Idempotent: singular(singular(w)) = singular(w).
 */
const KEEP = /(ss|us|is|ous|ics)$/;

export function singular(word: string): string {
  if (word.length <= 3 || !word.endsWith("s") || KEEP.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("lves")) return `${word.slice(0, -3)}f`;
  if (/(sses|ches|shes|xes|zes)$/.test(word)) return word.slice(0, -2);
  return word.slice(0, -1);
}
