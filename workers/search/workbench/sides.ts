/**
 * The two sides the workbench compares, for one query or a whole query set:
 * a published round (its query keywords, I_ret(q) and ranking, as search
 * serves it) or `bm25`, the evaluation's baseline (training/evaluate.ts: BM25
 * over the item text, the cutoff tuned on the training queries) read from the
 * run `npm run labels` or `npm run query-set` stored, since serving holds no
 * item-text postings. Each side's metrics against a query's labels: P/R/F1
 * over its retrieved set (I_ret(q); BM25's top `cutoff`), NDCG@10 and @100
 * with binary gains, and how many of its top 10 are unjudged.
 */
import type { Context } from "hono";
import type { ServingManifest } from "../../../core/contract.js";
import { f1FromCounts } from "../../../core/metrics.js";
import { ndcgAt } from "../../../core/overlap.js";
import { KEYWORD_RANKER, rankerName } from "../../../core/ranker.js";
import { Problem } from "../errors.js";
import { type QueryKeywords, queryKeywords } from "../keywords.js";
import type { ServicesEnv } from "../middleware/services.js";
import { runSearch, type SearchResult } from "../pipeline.js";
import type { Bm25Run, Labels } from "./store.js";

/** Ranks read per side: NDCG@100 and the overlap at 100 need the top 100. */
export const SIDE_LIMITS = { depth: 100 } as const;

export type Side = { kind: "round"; round: ServingManifest } | { kind: "bm25"; round: ServingManifest };

/** `a`/`b`: a round number or bm25; default the newest two rounds, or the newest against bm25. */
export function pickSides(published: readonly ServingManifest[], a: string | undefined, b: string | undefined): [Side, Side] {
  if (published.length === 0) throw new Problem("noRound", "No round is published yet: run `npm run publish -- --round N`.");
  const byNumber = (v: string, name: string) => {
    const r = published.find((m) => String(m.round) === v);
    if (!r) throw new Problem("notFound", `${name}: round ${v} is not published (published: ${published.map((m) => m.round).join(", ")})`, { parameter: name });
    return r;
  };
  const av = a ?? String((published[0] as ServingManifest).round);
  const bv = b ?? (published[1] ? String(published[1].round) : "bm25");
  if (av === "bm25" && bv === "bm25") throw new Problem("invalidParameter", "a and b cannot both be bm25", { parameter: "b" });
  const ra = av === "bm25" ? null : byNumber(av, "a");
  const rb = bv === "bm25" ? null : byNumber(bv, "b");
  // BM25's results are item ids; the other side's round names them (name, class).
  const base = (ra ?? rb) as ServingManifest;
  return [ra ? { kind: "round", round: ra } : { kind: "bm25", round: base }, rb ? { kind: "round", round: rb } : { kind: "bm25", round: base }];
}

export function sideLabel(side: Side, run: Bm25Run | undefined): string {
  if (side.kind === "round") return `round ${side.round.round}`;
  return run ? `BM25 over the item text, cutoff ${run.cutoff} tuned on ${run.tunedOn} training queries` : "BM25 over the item text";
}

export const sideRanker = (side: Side) => (side.kind === "round" ? rankerName(side.round.ranker ?? KEYWORD_RANKER) : "bm25");

export interface SideRun {
  readonly side: Side;
  readonly generated: QueryKeywords;
  /** The first SIDE_LIMITS.depth results, explained for a round (with `explain`). */
  readonly results: SearchResult[];
  /** A round: |I_ret(q)|; bm25: its retrieved set, min(cutoff, its ranking); null: no stored run for this query. */
  readonly retrieved: number | null;
  /** Whether an item is in the side's retrieved set. */
  readonly retrieves: (id: string, ordinal: number | undefined) => boolean;
}

const NO_KEYWORDS: QueryKeywords = { keywords: [], source: "raw", corrected: null };

export async function runSide(c: Context<ServicesEnv>, side: Side, q: string, run: Bm25Run | undefined, explain: boolean): Promise<SideRun> {
  const { catalog, store, keywordDeps, blockTerms } = c.var.services;
  if (side.kind === "round") {
    const generated = await queryKeywords(keywordDeps, side.round, q);
    const answer = await runSearch({ store, catalog, blockTerms }, side.round, q, generated, { limit: SIDE_LIMITS.depth, offset: 0 }, { explain });
    return { side, generated, results: answer.results, retrieved: answer.total, retrieves: (_id, o) => o !== undefined && answer.retrieves(o) };
  }
  if (!run) return { side, generated: NO_KEYWORDS, results: [], retrieved: null, retrieves: () => false };
  const retrievedIds = new Set(run.ranked.slice(0, run.cutoff).map(([id]) => id));
  const top = run.ranked.slice(0, SIDE_LIMITS.depth);
  const ordinals = await catalog.ordinalsOf(
    side.round,
    top.map(([id]) => id),
  );
  const rows = await catalog.itemsByOrdinal(side.round, [...ordinals.values()]);
  const results: SearchResult[] = [];
  for (const [id, score] of top) {
    const o = ordinals.get(id);
    const row = o === undefined ? undefined : rows.get(o);
    // An id the round does not hold (another catalogue's run) cannot be shown; it still counts in the metrics below.
    if (row) results.push({ id, name: row.name, class: row.class, score, related: false, ...(explain ? { explain: { keywords: [], words: [] } } : {}) });
  }
  return { side, generated: NO_KEYWORDS, results, retrieved: retrievedIds.size, retrieves: (id) => retrievedIds.has(id) };
}

export interface SideMetrics {
  readonly relevant: number;
  readonly retrieved: number;
  readonly hits: number;
  readonly p: number;
  readonly r: number;
  readonly f1: number;
  readonly ndcg10: number;
  readonly ndcg100: number;
}

/** The side's ranking as ids, to SIDE_LIMITS.depth (BM25: the stored run, whether or not the round shows every id). */
export function rankedIds(run: SideRun, bm25: Bm25Run | undefined): string[] {
  return run.side.kind === "bm25" && bm25 ? bm25.ranked.slice(0, SIDE_LIMITS.depth).map(([id]) => id) : run.results.map((r) => r.id);
}

/** Metrics against labels; null without labels, or for bm25 without a stored run. */
export async function sideMetrics(c: Context<ServicesEnv>, run: SideRun, labels: Labels, ranked: readonly string[]): Promise<SideMetrics | null> {
  if (labels.size === 0 || run.retrieved === null) return null;
  const relevant = [...labels].filter(([, l]) => l !== "Irrelevant").map(([id]) => id);
  const ordinals = run.side.kind === "round" ? await c.var.services.catalog.ordinalsOf(run.side.round, relevant) : new Map<string, number>();
  let hits = 0;
  for (const id of relevant) if (run.retrieves(id, ordinals.get(id))) hits++;
  const retrieved = run.retrieved;
  const rel = new Set(relevant);
  return {
    relevant: relevant.length,
    retrieved,
    hits,
    p: retrieved === 0 ? 0 : hits / retrieved,
    r: relevant.length === 0 ? 0 : hits / relevant.length,
    f1: f1FromCounts(hits, retrieved, relevant.length),
    ndcg10: ndcgAt(ranked, rel, 10),
    ndcg100: ndcgAt(ranked, rel, 100),
  };
}

/** Of the side's top 10, how many no label or judgment covers (Quepid's judged depth). */
export const unjudgedTop10 = (ranked: readonly string[], labels: Labels) => ranked.slice(0, 10).filter((id) => !labels.has(id)).length;
