/**
 * The worker's answers against the trainer's at a benchmark's scale
 * (`bench:scale -- --equal N`): the round the dev server serves, read whole
 * in-process as `npm run eval` reads it, its query generator run by core, and
 * N queries asked of both. Ids, scores, totals and keywords must be the same,
 * as test/workers/equality.test.ts checks on small rounds.
 */
import { loadQueryCorrector, loadQueryGenerator } from "../../core/query-generator.js";
import { planQuery } from "../../core/retrieve.js";
import { readRound } from "../../training/round-artifact.js";

type Answer = { round: number; total: number; keywords: string[]; results: Array<{ id: string; score: number }> };

export interface EqualityReport {
  readonly queries: number;
  readonly hits: number;
  /** The first differences, one line each (none when the answers agree). */
  readonly differences: string[];
}

export async function compareWithWorker(baseUrl: string, artifacts: string, round: number, queries: readonly string[], limit = 10): Promise<EqualityReport> {
  const r = readRound(round, artifacts);
  const generate = loadQueryGenerator(r.queryGenerator, r.index);
  if (!generate) throw new Error(`round ${round} has no CPU query generator to compare with`);
  const correct = loadQueryCorrector(r.queryGenerator);
  const differences: string[] = [];
  let hits = 0;
  for (const q of queries) {
    // Once more on a failed fetch: reading the round takes a minute at 1M items, and the keep-alive socket the
    // timings left open is closed by the server meanwhile ("other side closed").
    const url = `${baseUrl}/v1/search?q=${encodeURIComponent(q)}&limit=${limit}`;
    const ask = () => fetch(url, { headers: { "x-cogr-user": "bench-equality" } });
    const res = await ask()
      .catch(ask)
      .catch((e: Error) => {
        throw new Error(`search ${JSON.stringify(q)}: ${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ""}`);
      });
    if (!res.ok) throw new Error(`search ${JSON.stringify(q)} answered ${res.status}`);
    const body = (await res.json()) as Answer;
    if (body.round !== round) throw new Error(`the server answers from round ${body.round}, not ${round}`);
    const keywords = generate(q);
    // With the related items a short page is filled with, as the worker answers.
    const page = r.index.search(planQuery(keywords, q, r.index.queryTerms, correct(q)?.text), { limit, related: true });
    const trainer = { total: page.total, ids: page.hits.map((h) => r.index.ids[h.item]), scores: page.hits.map((h) => h.score) };
    const worker = { total: body.total, ids: body.results.map((x) => x.id), scores: body.results.map((x) => x.score) };
    if (JSON.stringify(trainer) !== JSON.stringify(worker) || JSON.stringify([...keywords].sort()) !== JSON.stringify([...body.keywords].sort())) {
      differences.push(
        `${JSON.stringify(q)}: trainer ${JSON.stringify({ ...trainer, keywords })} worker ${JSON.stringify({ ...worker, keywords: body.keywords })}`,
      );
    }
    hits += page.hits.length;
  }
  return { queries: queries.length, hits, differences };
}
