/**
 * `npm run bench:core` (needs COGR_DATA): index build, per-query latency,
 * incremental vs naive item reward, and two peers (MiniSearch, Orama) over
 * the same keyword bags. A benchmark, not a test: it prints figures.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { create, insertMultiple, search as oramaSearch } from "@orama/orama";
import MiniSearch from "minisearch";
import { indexHints } from "../core/hints.js";
import { itemKeywordSet, KeywordIndex } from "../core/inverted-index.js";
import { f1FromCounts } from "../core/metrics.js";
import { keywordWords, normalizeKeyword } from "../core/normalize.js";
import { firstPassOf, loadHintedGenerator, loadQueryGenerator, policyOf } from "../core/query-generator.js";
import { planQuery, type QueryPlan } from "../core/retrieve.js";
import { ItemRewardContext, postingsOf } from "../core/reward.js";
import { Rng } from "../core/rng.js";
import { ROUND_FILES } from "../core/round-format.js";
import { dataDir, loadDataset } from "../training/data/dataset.js";
import { toEvalQueries } from "../training/evaluate.js";
import { listRounds, readRound, roundDir } from "../training/round-artifact.js";
import { buildRound0 } from "../training/round0.js";
import { misspellQuery } from "../training/typos.js";
import { percentile, printTable, slowestMedian, timeEach } from "./bench/stats.js";
import { benchTopK } from "./bench/topk.js";
import { runCli } from "./cli.js";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const ms = (x: number) => `${x.toFixed(3)} ms`;
const SEP = "\u0001";

runCli(async () => {
  const dataset = await loadDataset(dataDir());
  const round = buildRound0(dataset);
  const items = round.items;
  const rows: Array<Record<string, string>> = [];

  // Index build: time and memory.
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const index = KeywordIndex.build(items);
  const buildMs = performance.now() - t0;
  gc();
  const retained = process.memoryUsage().heapUsed - heap0;
  rows.push({
    measure: "index build",
    value: `${buildMs.toFixed(0)} ms for ${index.itemCount} items, ${index.keywordPostings.size} keywords`,
    note: `retained heap ${mb(retained)}, process peak RSS ${mb(process.resourceUsage().maxRSS * 1024)}`,
  });

  // Per-query latency over every query, with the round's query generator.
  const generate = loadQueryGenerator(round.queryGenerator);
  if (!generate) throw new Error("round 0 must ship a CPU generator");
  const { queries } = toEvalQueries(dataset.queries, dataset.relevant, index);
  const plans: QueryPlan[] = queries.map((q) => planQuery(generate(q.text), q.text, index.queryTerms));
  let visited = 0;
  for (const p of plans) {
    const f = index.fetch(p);
    for (const l of f.keywords.values()) visited += l.length;
    for (const w of f.words.values()) visited += w.items.length;
  }
  const ours = await timeEach(plans, (p) => index.search(p));
  const oursTotal = ours.reduce((a, b) => a + b, 0);
  rows.push({
    measure: "query: retrieve + rank (cogr core)",
    value: `p50 ${ms(percentile(ours, 50))}, p99 ${ms(percentile(ours, 99))}`,
    note: `${((oursTotal * 1e6) / visited).toFixed(1)} ns per posting visited (${visited} postings, ${plans.length} queries)`,
  });

  // A page of 10 from blocked postings, as the worker ranks it: block-max top-k against the exhaustive reference.
  const top = await benchTopK(index, plans);
  const perPosting = (totalMs: number) => `${((totalMs * 1e6) / top.postings).toFixed(1)} ns per posting visited`;
  rows.push({
    measure: `query: top ${top.pageSize} from blocks as the worker ranks them (core/topk.ts: block-max for one-word plans)`,
    value: `p50 ${ms(top.blockMax.p50Ms)}, p99 ${ms(top.blockMax.p99Ms)}`,
    note: `${perPosting(top.blockMax.totalMs)} (${top.postings} postings; ${top.scored} entries decoded or scored)`,
  });
  rows.push({
    measure: `query: top ${top.pageSize} from blocks, exhaustive (executeQuery)`,
    value: `p50 ${ms(top.exhaustive.p50Ms)}, p99 ${ms(top.exhaustive.p99Ms)}`,
    note: perPosting(top.exhaustive.totalMs),
  });

  // Item reward: incremental (App. B.3) vs naive recomputation (rebuild and rerun every query).
  const itemSets = items.map((it) => itemKeywordSet(it));
  const names = items.map((it) => normalizeKeyword(it.name));
  const train = new Set(round.split.train);
  const trainQ = toEvalQueries(
    dataset.queries.filter((q) => train.has(q.id)),
    dataset.relevant,
    index,
  ).queries;
  const querySets = trainQ.map((q) => planQuery(generate(q.text), q.text, index.queryTerms).keywords);
  const relevant = trainQ.map((q) => q.relevant);
  const ctx = new ItemRewardContext({ itemSets, itemNames: names, querySets, relevant });
  const samples = Array.from({ length: 2000 }, (_, j) => {
    const i = (j * 7919) % items.length;
    const kws = items[i]?.keywords ?? [];
    return { i, cand: j % 2 === 0 ? kws.slice(0, Math.max(1, kws.length - 3)) : [...kws, "chair", "table"] };
  });
  const inc = await timeEach(samples, (s) => ctx.reward(s.i, s.cand));
  const incMean = inc.reduce((a, b) => a + b, 0) / inc.length;
  const naive = (i: number, cand: readonly string[]) => {
    const sets = itemSets.map((s, j) => (j === i ? itemKeywordSet({ name: items[i]?.name ?? "", keywords: cand }) : s));
    const post = postingsOf(sets);
    let total = 0;
    querySets.forEach((qs, q) => {
      const ret = new Set<number>();
      for (const k of qs) for (const o of post.get(k) ?? []) ret.add(o);
      let tp = 0;
      for (const o of ret) if (relevant[q]?.has(o)) tp++;
      total += f1FromCounts(tp, ret.size, relevant[q]?.size ?? 0);
    });
    return total;
  };
  const ref = ctx.referenceTotal();
  const naiveSamples = samples.slice(0, 5);
  const nv = await timeEach(naiveSamples, (s) => naive(s.i, s.cand));
  const nvMean = nv.reduce((a, b) => a + b, 0) / nv.length;
  const agree = naiveSamples.every((s) => Math.abs(naive(s.i, s.cand) - ref - ctx.reward(s.i, s.cand)) < 1e-9);
  rows.push({
    measure: "item reward (eq. 2.3)",
    value: `incremental ${(incMean * 1000).toFixed(1)} µs, naive ${nvMean.toFixed(0)} ms`,
    note: `${Math.round(nvMean / incMean).toLocaleString("en")}× faster; equal values: ${agree ? "yes" : "NO"} (${trainQ.length} training queries)`,
  });

  // Peers over the same bags: keyword match as a filter, BM25 (d = 0) over the words.
  const docs = items.map((it, j) => {
    const set = itemKeywordSet(it);
    return { id: j, kw: set.join(SEP), kwList: set, bag: set.flatMap(keywordWords).join(" ") };
  });
  const ordinalOf = new Map(index.ids.map((id, j) => [id, j]));
  const docOrdinal = items.map((it) => ordinalOf.get(it.id) as number);
  const mini = new MiniSearch({
    fields: ["kw", "bag"],
    tokenize: (text, field) => (field === "kw" ? text.split(SEP) : text.split(" ")),
    processTerm: (t) => t,
  });
  mini.addAll(docs);
  const miniRun = (p: QueryPlan) => {
    const cand = new Set(mini.search(p.keywords.join(SEP), { fields: ["kw"], tokenize: (s) => s.split(SEP) }).map((r) => r.id as number));
    return mini
      .search(p.words.join(" "), { fields: ["bag"], tokenize: (s) => s.split(" "), bm25: { k: 1.2, b: 0.75, d: 0 }, filter: (r) => cand.has(r.id as number) })
      .map((r) => ({ id: r.id as number, score: r.score / r.queryTerms.length })) // undo MiniSearch's coordination factor
      .sort((a, b) => b.score - a.score || (docOrdinal[a.id] as number) - (docOrdinal[b.id] as number));
  };
  const orama = create({
    schema: { kw: "enum[]", bag: "string" } as const,
    components: { tokenizer: { language: "english", normalizationCache: new Map(), tokenize: (raw: string) => raw.split(" ").filter((w) => w !== "") } },
  });
  await insertMultiple(
    orama,
    docs.map((d) => ({ id: String(d.id), kw: d.kwList, bag: d.bag })),
    2000,
  );
  const oramaRun = async (p: QueryPlan) => {
    const r = await oramaSearch(orama, {
      term: p.words.join(" "),
      properties: ["bag"],
      where: { kw: { containsAny: [...p.keywords] } },
      relevance: { k: 1.2, b: 0.75, d: 0 },
      threshold: 1,
      limit: 1_000_000,
    });
    return r.hits.map((h) => ({ id: Number(h.id), score: h.score }));
  };
  const oursTop = plans.map((p) => index.search(p, { limit: 100 }).hits.map((h) => h.item));
  for (const [name, run] of [
    ["MiniSearch 7.2 (BM25, d = 0; length = distinct terms)", miniRun],
    ["Orama 3.1 (BM25, d = 0; prefix matching, its own idf)", oramaRun],
  ] as const) {
    const lat = await timeEach(plans, run);
    let f1 = 0;
    let overlap = 0;
    let sameOrder = 0;
    for (let q = 0; q < plans.length; q++) {
      const res = (await run(plans[q] as QueryPlan)).map((r) => docOrdinal[r.id] as number);
      const rel = queries[q]?.relevant ?? new Set<number>();
      f1 += f1FromCounts(res.filter((o) => rel.has(o)).length, res.length, rel.size);
      const top = res.slice(0, 100);
      const mine = oursTop[q] ?? [];
      const s = new Set(mine);
      overlap += mine.length === 0 ? 1 : top.filter((o) => s.has(o)).length / Math.max(mine.length, top.length);
      if (top.length === mine.length && top.every((o, j) => o === mine[j])) sameOrder++;
    }
    rows.push({
      measure: `query: ${name}`,
      value: `p50 ${ms(percentile(lat, 50))}, p99 ${ms(percentile(lat, 99))}`,
      note: `F1 ${(f1 / plans.length).toFixed(4)}; top-100 overlap with ours ${((100 * overlap) / plans.length).toFixed(1)}%, identical order on ${sameOrder}/${plans.length} queries`,
    });
  }
  let oursF1 = 0;
  plans.forEach((p, q) => {
    const page = index.search(p);
    const rel = queries[q]?.relevant ?? new Set<number>();
    oursF1 += f1FromCounts(page.hits.filter((h) => rel.has(h.item)).length, page.total, rel.size);
  });
  (rows[1] as Record<string, string>).note += `; F1 ${(oursF1 / plans.length).toFixed(4)}`;
  // The newest trained round's query policy, if any: its size and per-query inference time.
  const trained = listRounds()
    .filter((r) => r > 0)
    .at(-1);
  if (trained !== undefined) {
    const r = readRound(trained);
    const policy = policyOf(r.queryGenerator);
    const pass = firstPassOf(r.queryGenerator);
    if (policy) {
      // Unmemoised: every timed call pays the first pass, as a keyword-cache miss in the worker does.
      const generate = loadHintedGenerator(policy);
      const hintsOf = (q: string) => (pass ? indexHints(r.index, q, pass.topK) : undefined);
      const gen = (q: string) => generate(q, hintsOf(q));
      hintsOf("chair"); // builds the index's item → keywords inverse once, as an isolate does on its first hinted query
      const lat = await timeEach(dataset.queries, (q) => gen(q.text), 5);
      const slowest = slowestMedian(dataset.queries, (q) => gen(q.text));
      const bytes = statSync(join(roundDir(trained), ROUND_FILES.queryGenerator)).size;
      rows.push({
        measure: `query policy (round ${trained}, ${pass ? `hinted, top ${pass.topK}` : "no hints"})`,
        value: `p50 ${ms(percentile(lat, 50))}, p99 ${ms(percentile(lat, 99))} per query`,
        note: `first pass included; ${dataset.queries.length} queries × 5 passes; slowest query warm (median of 11) ${ms(slowest.ms)}; serialised ${mb(bytes)} (budget 20 MB, 1 ms)`,
      });
      // The same queries with one typo each (training/typos.ts): spelling correction runs on every one of them.
      const rng = new Rng(1);
      const typos = dataset.queries.map((q) => misspellQuery(q.text, rng) ?? q.text);
      const typoLat = await timeEach(typos, (q) => gen(q), 5);
      rows.push({
        measure: "  the same queries, one typo each",
        value: `p50 ${ms(percentile(typoLat, 50))}, p99 ${ms(percentile(typoLat, 99))} per query`,
        note: "spelling correction included (core/typos.ts): npm run typos's misspellings, seed 1",
      });
      if (pass) {
        const first = await timeEach(dataset.queries, (q) => hintsOf(q.text), 5);
        rows.push({
          measure: "  of which the first pass (core/hints.ts)",
          value: `p50 ${ms(percentile(first, 50))}, p99 ${ms(percentile(first, 99))} per query`,
          note: `plain BM25 over the round's bags, top ${pass.topK}, their keyword sets`,
        });
      }
    }
  }
  printTable(rows);
});
