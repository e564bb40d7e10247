/**
 * Relevance labels from two sources, merged the one way the worker's pages
 * and `npm run labels:export` both read them: the file's labels (`npm run
 * labels`, each row stamped with its load time) and the judgments made in the
 * compare page. Among raters the newest judgment stands; it wins over the
 * file's label only when it was made after the file was loaded.
 */
export type Grade = "Exact" | "Partial" | "Irrelevant";

export function mergeLabels(
  file: ReadonlyArray<{ itemId: string; label: Grade; loadedAt: string | null }>,
  judged: ReadonlyArray<{ itemId: string; label: Grade; judgedAt: string }>,
): Map<string, Grade> {
  const newest = new Map<string, { label: Grade; judgedAt: string }>();
  for (const j of judged) {
    const seen = newest.get(j.itemId);
    if (!seen || j.judgedAt > seen.judgedAt) newest.set(j.itemId, j);
  }
  const out = new Map<string, Grade>();
  const loaded = new Map<string, string | null>();
  for (const f of file) {
    out.set(f.itemId, f.label);
    loaded.set(f.itemId, f.loadedAt);
  }
  for (const [id, j] of newest) {
    const at = loaded.get(id);
    // No file row, or one loaded before this judgment (or before load times were kept, null): the judgment stands.
    if (at === undefined || at === null || j.judgedAt > at) out.set(id, j.label);
  }
  return out;
}
