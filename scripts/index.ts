/**
 * `npm run index -- --generator vllm --base-url URL --model NAME --round N
 *   [--from-round M] [--query-model NAME] [--query-base-url URL] [--queries none|dev|train|all|FILE] [--keep-items]
 *   [--concurrency 16] [--timeout-ms 60000] [--attempts 3]`
 * Builds round N from an item-side model on an OpenAI-compatible server
 * (vLLM), starting from round M's items (default N − 1). Resumable: a killed
 * run continues from its checkpoints without repeating finished items.
 */
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { SingleBar } from "cli-progress";
import { dataDir, loadDataset } from "../training/data/dataset.js";
import { loadQueries, type Query } from "../training/data/wands.js";
import { BATCH_DEFAULTS } from "../training/llm/batch.js";
import { buildLlmRound, removeCheckpoints } from "../training/llm/index-round.js";
import { readRound, roundDir, writeRound } from "../training/round-artifact.js";
import { useRunTempRoot } from "../training/temp-root.js";
import { intOption, isEntry, parseCli, runCli, UsageError } from "./cli.js";

const USAGE =
  "npm run index -- --generator vllm --base-url URL --model NAME --round N [--from-round M] [--query-model NAME] [--query-base-url URL] " +
  "[--queries none|dev|train|all|FILE] [--keep-items] [--concurrency 16] [--timeout-ms 60000] [--attempts 3]";

export interface IndexHooks {
  /** Called after each finished unit of a stage (a test: a real SIGKILL mid-run, to prove resumption). */
  readonly progress?: (stage: string, done: number) => void;
}

export async function indexCommand(hooks: IndexHooks = {}): Promise<void> {
  useRunTempRoot(); // every temporary file of the run in one folder, removed at exit or by the next run
  const args = parseCli(
    {
      generator: { type: "string" },
      "base-url": { type: "string" },
      model: { type: "string" },
      "query-model": { type: "string" },
      "query-base-url": { type: "string" },
      round: { type: "string" },
      "from-round": { type: "string" },
      queries: { type: "string" },
      concurrency: { type: "string" },
      "timeout-ms": { type: "string" },
      attempts: { type: "string" },
      "keep-items": { type: "boolean" },
    },
    USAGE,
  );
  if (args.generator !== "vllm") throw new UsageError(`--generator must be vllm (the lexical rounds come from npm run train)\nusage: ${USAGE}`);
  const baseUrl = args["base-url"] ?? process.env.LLM_BASE_URL;
  if (!baseUrl) throw new UsageError(`--base-url is required (or LLM_BASE_URL)\nusage: ${USAGE}`);
  if (!/^https?:\/\//.test(baseUrl)) throw new UsageError(`--base-url must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  if (!args.model && !args["keep-items"]) throw new UsageError(`--model is required: the item-side model's served name\nusage: ${USAGE}`);
  if (args.round === undefined) throw new UsageError(`--round is required\nusage: ${USAGE}`);
  if (!(args["query-model"] ?? args.model)) throw new UsageError(`--query-model (or --model) is required: the query-side model's served name\nusage: ${USAGE}`);
  const queryBaseUrl = args["query-base-url"] ?? baseUrl;
  if (!/^https?:\/\//.test(queryBaseUrl)) throw new UsageError(`--query-base-url must be an http(s) URL, got ${JSON.stringify(queryBaseUrl)}`);
  const round = intOption("round", args.round, 0, 1);
  const fromRound = intOption("from-round", args["from-round"], round - 1);
  if (fromRound === round) throw new UsageError("--from-round must differ from --round");
  const endpoint = {
    baseUrl,
    apiKey: process.env.LLM_API_KEY,
    timeoutMs: intOption("timeout-ms", args["timeout-ms"], 60_000, 1),
    concurrency: intOption("concurrency", args.concurrency, BATCH_DEFAULTS.concurrency, 1),
    attempts: intOption("attempts", args.attempts, BATCH_DEFAULTS.attempts, 1),
  };
  const dataset = await loadDataset(dataDir());
  const from = readRound(fromRound);
  const which = args.queries ?? "dev";
  const byId = new Map(dataset.queries.map((q) => [q.id, q]));
  const pick = (ids: readonly string[]) => ids.map((id) => byId.get(id)).filter((q): q is Query => q !== undefined);
  let queries: readonly Query[];
  if (which === "none") queries = [];
  else if (which === "dev") queries = pick(from.manifest.split.dev);
  else if (which === "train") queries = pick(from.manifest.split.train);
  else if (which === "all") queries = dataset.queries;
  else if (existsSync(which)) queries = await loadQueries(which, "string");
  else throw new UsageError(`--queries must be none, dev, train, all or a query file (${JSON.stringify(which)} does not exist)`);

  const t0 = performance.now();
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: " {stage} [{bar}] {value}/{total} | ETA {eta_formatted} | {failed} failed", hideCursor: true })
    : null;
  let stage = "";
  let failed = 0;
  const prefix = `${roundDir(round)}.index-checkpoint`;
  const { content, report } = await buildLlmRound(dataset, from, {
    round,
    itemModel: args.model ?? "",
    queryModel: args["query-model"] ?? args.model ?? "",
    endpoint,
    queryEndpoint: { ...endpoint, baseUrl: queryBaseUrl },
    queries,
    keepItems: Boolean(args["keep-items"]),
    checkpointPrefix: prefix,
    onProgress: (s, rec, done, total) => {
      if (s !== stage) {
        bar?.stop();
        stage = s;
        failed = 0;
        bar?.start(total, done - 1, { stage: s.padEnd(7), failed });
      }
      if (rec.status === "failed") failed++;
      hooks.progress?.(s, done);
      bar?.update(done, { failed });
    },
  });
  bar?.stop();
  const dir = writeRound(content);
  removeCheckpoints(prefix);
  const dev = (content.metrics?.dev as { f1?: number } | undefined)?.f1;
  console.log(
    `round ${round} written to ${dir} in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${report.items} items ` +
      `(${report.itemsResumed} from the checkpoint, ${report.itemsFellBack} kept round ${fromRound}'s keywords), ` +
      `${report.queries} queries precomputed (${report.queriesFellBack} from the fallback policy)` +
      (Object.keys(report.failures).length > 0 ? `; failures by kind ${JSON.stringify(report.failures)}` : "") +
      (dev !== undefined ? `; dev F1 ${dev.toFixed(4)}` : ""),
  );
}

if (isEntry(import.meta.url)) runCli(() => indexCommand());
