/**
 * `npm run train -- --backend lexical [--rounds 5] [--seed S] [--from-round 0]
 *   [--no-sft] [--shared-generator] [--item-reward marginal|transposed-f1] [--freeze-items] [--no-hints]
 *   [--query-decoding independent|sequential]
 *   [--ranker R] [--cv K [--cv-only]] [--supervision labels|catalog|labels+catalog|clicks] [--workers N]
 *   [--items-trained N] [--events FILE [--with-catalog] [--unknown missing|irrelevant|W]]`
 * Resumable: a killed run continues from its last completed phase. Ablations
 * write their rounds under artifacts/ablations/<name>/ so the main rounds stay.
 * With --cv K, k-fold cross-validation over the training queries first
 * (training/cv.ts) picks the ranker the rounds are written with and the round
 * to ship; `npm run eval:cv` is --cv 5 --cv-only. --supervision picks what it
 * trains on (training/supervision/supervision.ts); the default is labels when
 * COGR_DATA has query.csv and label.csv, else catalog (pseudo-queries);
 * `clicks` trains on relevance derived from an event file (training/clicks/).
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import { MultiBar, Presets } from "cli-progress";
import { KEYWORD_RANKER, rankerName } from "../core/ranker.js";
import { formatDeriveReport } from "../training/clicks/report.js";
import { CV_DEFAULTS, type CvProgress, type CvReport, crossValidate } from "../training/cv.js";
import { cvF1, formatCvReport, writeCvReport } from "../training/cv-report.js";
import { dataDir, loadDataset, requireLabels } from "../training/data/dataset.js";
import { trainLexical } from "../training/lexical.js";
import { type Ablations, TRAIN_DEFAULTS, type TrainOptions } from "../training/lexical-options.js";
import { artifactsDir, readManifest, roundDir, writeRound } from "../training/round-artifact.js";
import { buildRound0 } from "../training/round0.js";
import { clickRelevanceOf } from "../training/supervision/clicks.js";
import { defaultSupervision, hasLabels, isSupervision, loadCatalogOnly, type Supervision } from "../training/supervision/supervision.js";
import { useRunTempRoot } from "../training/temp-root.js";
import { intOption, isEntry, parseCli, rankerOption, runCli, UsageError } from "./cli.js";
import { writeVerlBundle } from "./train-verl.js";

const VERL_USAGE =
  "npm run train -- --backend verl --side query|item|sft --round N --out jobs/NAME [--model HF_ID_OR_DIR] [--served-name NAME] [--ray-nodes 2]";
const USAGE =
  "npm run train -- --backend lexical [--rounds 5] [--seed S] [--from-round 0] [--epochs-query 20] [--epochs-item 5] " +
  "[--no-sft] [--shared-generator] [--item-reward marginal|transposed-f1] [--freeze-items] [--no-hints] [--query-decoding independent|sequential] " +
  '[--ranker keywords|text|"blend K:T"] [--cv K [--cv-only]] [--supervision labels|catalog|labels+catalog|clicks] [--workers N] ' +
  "[--items-trained N] [--events FILE [--with-catalog] [--unknown missing|irrelevant|W]]";

function ablationName(a: Ablations, decoding: TrainOptions["queryDecoding"]): string | null {
  const parts = [
    a.noSft && "no-sft",
    a.sharedGenerator && "shared-generator",
    a.itemReward === "transposed-f1" && "transposed-f1",
    a.freezeItems && "freeze-items",
    a.noHints && "no-hints",
    decoding === "sequential" && "sequential-decoding",
  ].filter(Boolean);
  return parts.length > 0 ? parts.join("+") : null;
}

export interface TrainHooks {
  /** Called once each phase's checkpoint is written (a test: a real SIGKILL there, to prove resumption). */
  readonly checkpointed?: (phase: string) => void;
}

export async function trainCommand(hooks: TrainHooks = {}): Promise<void> {
  useRunTempRoot(); // every temporary file of the run in one folder, removed at exit or by the next run
  const args = parseCli(
    {
      backend: { type: "string" },
      rounds: { type: "string" },
      seed: { type: "string" },
      "from-round": { type: "string" },
      "epochs-query": { type: "string" },
      "epochs-item": { type: "string" },
      "no-sft": { type: "boolean" },
      "shared-generator": { type: "boolean" },
      "item-reward": { type: "string" },
      "freeze-items": { type: "boolean" },
      "no-hints": { type: "boolean" },
      "query-decoding": { type: "string" },
      side: { type: "string" },
      round: { type: "string" },
      out: { type: "string" },
      model: { type: "string" },
      "served-name": { type: "string" },
      "ray-nodes": { type: "string" },
      ranker: { type: "string" },
      cv: { type: "string" },
      "cv-only": { type: "boolean" },
      supervision: { type: "string" },
      events: { type: "string" },
      "with-catalog": { type: "boolean" },
      unknown: { type: "string" },
      workers: { type: "string" },
      "items-trained": { type: "string" },
    },
    `${USAGE}\n       ${VERL_USAGE}`,
  );
  const backend = args.backend ?? "lexical";
  if (backend === "verl") {
    await writeVerlBundle(args, VERL_USAGE);
    return;
  }
  if (backend !== "lexical") throw new UsageError(`unknown --backend ${JSON.stringify(backend)}\nusage: ${USAGE}`);
  const itemReward = args["item-reward"] ?? "marginal";
  if (itemReward !== "marginal" && itemReward !== "transposed-f1") throw new UsageError("--item-reward must be marginal or transposed-f1");
  const ablations: Ablations = {
    noSft: Boolean(args["no-sft"]),
    sharedGenerator: Boolean(args["shared-generator"]),
    itemReward,
    freezeItems: Boolean(args["freeze-items"]),
    noHints: Boolean(args["no-hints"]),
  };
  const decoding = args["query-decoding"] ?? "independent";
  if (decoding !== "independent" && decoding !== "sequential") throw new UsageError("--query-decoding must be independent or sequential");
  const name = ablationName(ablations, decoding);
  const root = name ? join(artifactsDir(), "ablations", name) : artifactsDir();
  const fromRound = intOption("from-round", args["from-round"], 0);
  const rounds = intOption("rounds", args.rounds, TRAIN_DEFAULTS.rounds, 1);
  const seed = intOption("seed", args.seed, TRAIN_DEFAULTS.seed);
  // Every option's value is checked here, before any data is read or round 0 built.
  const epochs = {
    sft: TRAIN_DEFAULTS.epochs.sft,
    query: intOption("epochs-query", args["epochs-query"], TRAIN_DEFAULTS.epochs.query, 1),
    item: intOption("epochs-item", args["epochs-item"], TRAIN_DEFAULTS.epochs.item, 1),
  };
  const workers = args.workers === undefined ? undefined : intOption("workers", args.workers, 1, 1);
  const itemsTrained = args["items-trained"] === undefined ? undefined : intOption("items-trained", args["items-trained"], TRAIN_DEFAULTS.itemsTrainedMax, 1);
  const folds = args.cv === undefined ? null : intOption("cv", args.cv, CV_DEFAULTS.folds, 2);
  if (args["cv-only"] && folds === null) throw new UsageError(`--cv-only goes with --cv K\nusage: ${USAGE}`);
  if (folds !== null && fromRound !== 0) throw new UsageError("--cv trains every fold from round 0: drop --from-round");
  let ranker = rankerOption(args.ranker);
  if (args.supervision !== undefined && !isSupervision(args.supervision))
    throw new UsageError(`--supervision must be labels, catalog, labels+catalog or clicks, got ${JSON.stringify(args.supervision)}`);
  const fromClicks = args.supervision?.startsWith("clicks") ?? false;
  if (fromClicks && args.events === undefined) throw new UsageError(`--supervision clicks needs --events FILE (npm run events:export)\nusage: ${USAGE}`);
  if (!fromClicks && (args.events !== undefined || args["with-catalog"] || args.unknown !== undefined))
    throw new UsageError("--events, --with-catalog and --unknown go with --supervision clicks");
  const unknownWeight = args.unknown === undefined ? undefined : args.unknown === "missing" ? 0 : args.unknown === "irrelevant" ? 1 : Number(args.unknown);
  if (unknownWeight !== undefined && !(/^(missing|irrelevant|[01](\.\d+)?)$/.test(args.unknown ?? "") && unknownWeight >= 0 && unknownWeight <= 1))
    throw new UsageError(`--unknown must be missing, irrelevant or a weight from 0 to 1, got ${JSON.stringify(args.unknown)}`);
  const supervision: Supervision = fromClicks
    ? args["with-catalog"] || args.supervision === "clicks+catalog"
      ? "clicks+catalog"
      : "clicks"
    : ((args.supervision as Supervision | undefined) ?? defaultSupervision(dataDir()));
  // Cross-validation scores held-out hand-labelled queries, which catalogue-only and click training never read.
  if (folds !== null && (supervision === "catalog" || fromClicks))
    throw new UsageError(`--cv scores held-out hand-labelled queries; --supervision ${supervision} trains on none: drop --cv`);

  // The label-free path opens the products only; clicks read the labels only for dev, when the folder has them.
  const labelFree = supervision === "catalog" || (fromClicks && !hasLabels(dataDir()));
  // The products' text stays on disk (training/data/product-file.ts): at a million products it was 2.75 GB of heap.
  const dataset = labelFree ? await loadCatalogOnly(dataDir(), { productsOnDisk: true }) : await loadDataset(dataDir(), { productsOnDisk: true });
  if (!labelFree && !fromClicks) requireLabels(dataset, "npm run train", "train from the catalogue alone with `npm run train -- --supervision catalog`");
  console.log(`supervision: ${supervision}${args.supervision === undefined ? ` (the default for ${dataDir()})` : ""}`);
  if (fromClicks) console.log(formatDeriveReport(clickRelevanceOf(args.events as string).report));
  if (!existsSync(join(roundDir(fromRound, root), "manifest.json"))) {
    if (fromRound !== 0) throw new Error(`no round ${fromRound} under ${root}: train it first`);
    // Round 0 is the extractor's: build it (or copy the main one's split) where this run starts. Without
    // labels read, the main round 0's split is copied whole (its ids, no file), else it is empty.
    const main = existsSync(join(roundDir(0), "manifest.json")) ? readManifest(roundDir(0)) : null;
    const split = supervision === "catalog" ? (main ? { split: main.split } : {}) : main ? { seed: main.split.seed, devQueries: main.split.devQueries } : {};
    writeRound(buildRound0(dataset, split), root);
  }
  const t0 = performance.now();
  // bench:train reads each phase's wall time, peak RSS so far and live heap from these lines (stderr, with COGR_REPORT_RSS).
  let mark = 0; // performance.now() counts from the process start: "load" is startup, reading the data and any round 0 build
  const phaseStats = (what: string) => {
    if (!process.env.COGR_REPORT_RSS) return;
    const now = performance.now();
    // Live heap: after a full collection when node runs with --expose-gc (bench:train does), else what is allocated.
    (globalThis as { gc?: () => void }).gc?.();
    const heapMb = getHeapStatistics().used_heap_size / 2 ** 20;
    process.stderr.write(
      `phase-stats ${what} s ${((now - mark) / 1000).toFixed(1)} peak-rss-kb ${process.resourceUsage().maxRSS} heap-mb ${heapMb.toFixed(0)}\n`,
    );
    mark = now;
  };
  phaseStats("load");
  const tty = process.stderr.isTTY;
  const bars = new MultiBar(
    { format: " {phase} [{bar}] {value}/{total} steps | {stat}", hideCursor: true, clearOnComplete: false, noTTYOutput: false },
    Presets.shades_classic,
  );
  let bar: ReturnType<MultiBar["create"]> | null = null;
  let prefix = "";
  const log = (line: string) => (tty ? bars.log(`${line}\n`) : console.log(line));
  const progress: CvProgress = {
    fold: (f, k) => {
      prefix = `fold ${f}/${k} `;
    },
    phaseStart: (phase, steps) => {
      phaseStats(`before-${phase}`);
      bar = tty ? bars.create(steps, 0, { phase: `${prefix}${phase}`.padEnd(8), stat: "" }) : null;
      if (!bar) console.log(`${prefix}${phase}: ${steps} steps`);
    },
    step: (s) => bar?.increment({ stat: s.meanReward !== undefined ? `mean reward ${s.meanReward.toFixed(4)}` : `loss ${(s.loss ?? 0).toFixed(4)}` }),
    phaseEnd: (phase, sum) => {
      bar?.stop();
      const heldOut = prefix ? "held-out fold" : supervision === "catalog" ? "held-out pseudo-query" : "dev";
      log(
        `${prefix}${phase}: ${heldOut} F1 ${sum.dev.f1.toFixed(4)} (P ${sum.dev.p.toFixed(4)}, R ${sum.dev.r.toFixed(4)}), train F1 ${sum.train.f1.toFixed(4)}`,
      );
    },
    checkpointed: (phase) => {
      phaseStats(phase);
      hooks.checkpointed?.(phase);
    },
    mark: (what) => phaseStats(what.replace(/[: ]+/g, "-")),
  };
  const opts: TrainOptions = {
    rounds,
    seed,
    fromRound,
    epochs,
    ablations,
    artifactsRoot: root,
    // Only when asked: the default's checkpoints and rounds stay those of a run without the flag.
    ...(decoding === "sequential" ? { queryDecoding: decoding } : {}),
    ...(supervision !== "labels" ? { supervision } : {}),
    ...(fromClicks ? { clickEvents: args.events as string, ...(unknownWeight !== undefined ? { clickUnknownWeight: unknownWeight } : {}) } : {}),
    ...(workers !== undefined ? { workers } : {}),
    ...(itemsTrained !== undefined ? { itemsTrainedMax: itemsTrained } : {}),
  };
  let cv: CvReport | null = null;
  if (folds !== null) {
    cv = crossValidate(dataset, opts, folds, progress);
    prefix = "";
    const file = writeCvReport(cv, root);
    log(formatCvReport(cv));
    log(`cross-validation report → ${file}`);
    ranker ??= cv.choice.ranker;
    if (args["cv-only"]) {
      if (tty) bars.stop();
      return;
    }
  }
  const result = trainLexical(dataset, { ...opts, ...(ranker ? { ranker } : {}) }, progress);
  if (tty) bars.stop();
  console.log(
    `rounds ${result.rounds.join(", ") || "(none new)"} written under ${root}/rounds (ranker ${rankerName(ranker ?? KEYWORD_RANKER)}) in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  const last = fromRound + rounds;
  if (cv)
    console.log(
      `cross-validation picks round ${cv.choice.round} (held-out F1 ${cvF1(cv, cv.choice.round).toFixed(4)}); the last round is ${last} (${cvF1(cv, last).toFixed(4)})`,
    );
}

if (isEntry(import.meta.url)) runCli(() => trainCommand());
