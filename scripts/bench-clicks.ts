/**
 * `npm run bench:clicks -- [--searches 20000] [--rounds 2] [--seed 42] [--keep DIR]`:
 * what treating unjudged items as missing (the default) rather than
 * irrelevant does to a round trained from clicks. Needs COGR_DATA with
 * labels (WANDS); the labels of the round's **training** queries are the
 * simulated users' hidden relevance, dev is only evaluated.
 *
 * Users search a training query, see round 0's first ten results with
 * adjacent results swapped at random (the order variation interleaving and
 * A/B arms give the logs), examine position k with probability 1/k, click
 * a relevant result with probability 0.7 and any other 0.05, buy a fifth of
 * their relevant clicks; one bot clicks one irrelevant item on 2,000
 * searches. The log is trained from once per weight of an unjudged item
 * (`npm run train -- --supervision clicks --unknown W`, W in --weights,
 * 0 = missing, 1 = irrelevant), each round evaluated on the training
 * queries' hand labels (which training never saw: it saw clicks; this is
 * what chooses the default) and on dev, beside round 0 and tuned BM25.
 * A benchmark, not a test; dev chooses nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeKeyword } from "../core/normalize.js";
import { loadQueryGenerator } from "../core/query-generator.js";
import { planQuery } from "../core/retrieve.js";
import { Rng } from "../core/rng.js";
import { dataDir, loadDataset, requireLabels } from "../training/data/dataset.js";
import type { Query } from "../training/data/types.js";
import { readRoundIndex, wholeQueryGenerator } from "../training/round-artifact.js";
import { step } from "./bench/scale-steps.js";
import { printTable } from "./bench/stats.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";

const USAGE = "npm run bench:clicks -- [--searches 20000] [--rounds 2] [--seed 42] [--weights 0,0.25,0.5,1] [--with-catalog] [--keep DIR]";
const USERS = { count: 2_000, relevantClick: 0.7, noiseClick: 0.05, purchase: 0.2, swap: 0.3, shown: 10, botSearches: 2_000 } as const;

runCli(async () => {
  const args = parseCli(
    {
      searches: { type: "string" },
      rounds: { type: "string" },
      seed: { type: "string" },
      weights: { type: "string" },
      "with-catalog": { type: "boolean" },
      keep: { type: "string" },
    },
    USAGE,
  );
  const weights = (args.weights ?? "0,0.25,0.5,1").split(",").map((w) => w.trim());
  for (const w of weights)
    if (!/^[01](\.\d+)?$/.test(w) || Number(w) > 1) throw new UsageError(`--weights must list weights from 0 to 1, got ${JSON.stringify(w)}`);
  const searches = intOption("searches", args.searches, 20_000, 1);
  const rounds = intOption("rounds", args.rounds, 2, 1);
  const seed = intOption("seed", args.seed, 42);
  const work = args.keep ?? mkdtempSync(join(tmpdir(), "cogr-bench-clicks-"));
  try {
    await bench(work, searches, rounds, seed, weights, Boolean(args["with-catalog"]));
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
});

async function simulate(root: string, file: string, searches: number, seed: number): Promise<void> {
  const dataset = await loadDataset(dataDir());
  requireLabels(dataset, "npm run bench:clicks", "it simulates users from the training queries' labels");
  const round = readRoundIndex(0, root);
  const generate = loadQueryGenerator(wholeQueryGenerator(round.dir, round.manifest), round.index);
  if (!generate) throw new Error("round 0 has no query generator");
  const byId = new Map(dataset.queries.map((q) => [q.id, q]));
  const train = round.manifest.split.train.map((id) => byId.get(id)).filter((q): q is Query => q !== undefined && (dataset.relevant.get(q.id)?.size ?? 0) > 0);
  const pages = new Map<string, string[]>();
  const rng = new Rng(seed);
  const lines: string[] = [];
  let bots = 0;
  for (let s = 0; s < searches; s++) {
    const q = train[Math.floor(rng.next() * train.length)] as Query;
    let page = pages.get(q.id);
    if (!page) {
      const hits = round.index.search(planQuery(generate(q.text), q.text, round.index.queryTerms), { limit: USERS.shown }).hits;
      page = hits.map((h) => round.index.ids[h.item] as string);
      pages.set(q.id, page);
    }
    const shown = [...page];
    for (let j = 0; j + 1 < shown.length; j++) if (rng.next() < USERS.swap) [shown[j], shown[j + 1]] = [shown[j + 1] as string, shown[j] as string];
    const requestId = `sim-${s}`;
    const user = `user-${Math.floor(rng.next() * USERS.count)}`;
    const at = 1_780_000_000_000 + s * 1000;
    lines.push(
      JSON.stringify({
        type: "search",
        requestId,
        at,
        userHash: user,
        query: normalizeKeyword(q.text),
        round: 0,
        shown: shown.map((itemId, j) => ({ itemId, position: j + 1 })),
      }),
    );
    const rel = dataset.relevant.get(q.id) as ReadonlySet<string>;
    shown.forEach((itemId, j) => {
      if (rng.next() >= 1 / (j + 1)) return;
      const relevant = rel.has(itemId);
      if (rng.next() >= (relevant ? USERS.relevantClick : USERS.noiseClick)) return;
      lines.push(JSON.stringify({ type: "feedback", requestId, itemId, kind: "click", at: at + 1, userHash: user }));
      if (relevant && rng.next() < USERS.purchase)
        lines.push(JSON.stringify({ type: "feedback", requestId, itemId, kind: "purchase", at: at + 2, userHash: user }));
    });
    // The bot's searches are drawn on every search (its share fixed); one on a page with no irrelevant item sends nothing.
    const item = page.find((id) => !rel.has(id));
    if (bots < USERS.botSearches && rng.next() < USERS.botSearches / searches) {
      if (item !== undefined) {
        const shownAll = page.map((itemId, j) => ({ itemId, position: j + 1 }));
        lines.push(
          JSON.stringify({ type: "search", requestId: `bot-${bots}`, at, userHash: "bot", query: normalizeKeyword(q.text), round: 0, shown: shownAll }),
        );
        lines.push(JSON.stringify({ type: "feedback", requestId: `bot-${bots}`, itemId: item, kind: "click", at: at + 1, userHash: "bot" }));
      }
      bots++;
    }
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
}

async function bench(work: string, searches: number, rounds: number, seed: number, weights: readonly string[], withCatalog: boolean): Promise<void> {
  const base = join(work, "artifacts-base");
  await step("build-round", ["--round", "0", "--seed", String(seed)], { COGR_ARTIFACTS: base });
  const file = join(work, "events.jsonl");
  await simulate(base, file, searches, seed);
  const evalF1 = async (env: Record<string, string>, a: string[]) => JSON.parse((await step("eval", [...a, "--json"], env)).out.split("\n").at(-1) as string);
  const both = async (env: Record<string, string>, a: string[]) => ({ train: await evalF1(env, [...a, "--split", "train"]), dev: await evalF1(env, a) });
  const rows: Array<Record<string, string>> = [];
  const f = (x: number | undefined) => x?.toFixed(4) ?? "";
  const row = (name: string, m: { train: Record<string, number>; dev: Record<string, number> }) =>
    rows.push({
      round: name,
      "train F1": f(m.train.f1),
      "dev P": f(m.dev.p),
      "dev R": f(m.dev.r),
      "dev F1": f(m.dev.f1),
      "dev NDCG@100": f(m.dev["ndcg@100"]),
    });
  row("round 0", await both({ COGR_ARTIFACTS: base }, ["--method", "keywords", "--round", "0"]));
  const bm25 = await both({ COGR_ARTIFACTS: base }, ["--method", "bm25"]);
  const out: Record<string, { train: number; dev: number }> = {};
  for (const w of weights) {
    const env = { COGR_ARTIFACTS: join(work, `artifacts-w${w}`) };
    const t = await step(
      "train",
      [
        "--backend",
        "lexical",
        "--rounds",
        String(rounds),
        "--seed",
        String(seed),
        "--supervision",
        "clicks",
        "--events",
        file,
        "--unknown",
        w,
        ...(withCatalog ? ["--with-catalog"] : []),
      ],
      env,
    );
    if (w === weights[0]) console.log(t.out.split("\n").slice(1, 6).join("\n"));
    const m = await both(env, ["--method", "keywords", "--round", String(rounds)]);
    out[w] = { train: m.train.f1, dev: m.dev.f1 };
    row(`clicks${withCatalog ? "+catalog" : ""}, unjudged weight ${w}, round ${rounds} (${t.seconds.toFixed(0)} s)`, m);
  }
  row("BM25 (cutoff tuned on training queries)", bm25);
  printTable(rows);
  const best = Object.entries(out).sort((a, b) => b[1].train - a[1].train)[0]?.[0];
  console.log(`best on the training queries' labels: weight ${best}`);
  console.log(
    JSON.stringify({ searches, rounds, seed, weights: out, round0: { train: rows[0]?.["train F1"] }, bm25: { train: bm25.train.f1, dev: bm25.dev.f1 }, best }),
  );
}
