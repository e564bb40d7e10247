/**
 * `npm run pseudo-queries -- [--show 20] [--seed S] [--json]`: the
 * pseudo-queries `npm run train -- --supervision catalog` trains on, from
 * COGR_DATA's product.csv alone (training/supervision/catalog-queries.ts):
 * how many, of which shapes, and `--show N` of them spread evenly over the
 * draw, each with its type, attributes and graded counts: Exact, Partial (an
 * attribute unknown, or a near type) and Partial with another value of an
 * attribute; training counts the first two relevant.
 */

import { dataDir } from "../training/data/dataset.js";
import { TRAIN_DEFAULTS } from "../training/lexical-options.js";
import { PSEUDO_QUERY_BUDGETS, type PseudoQuery, pseudoQueries } from "../training/supervision/catalog-queries.js";
import { loadCatalogOnly } from "../training/supervision/supervision.js";
import { intOption, parseCli, runCli } from "./cli.js";

const USAGE = "npm run pseudo-queries -- [--show 20] [--seed S] [--json]";

const attributes = (q: PseudoQuery) => q.intent.attributes.map((a) => `${a.kind}: ${a.value}`).join(", ") || "—";

runCli(async () => {
  const args = parseCli({ show: { type: "string" }, seed: { type: "string" }, json: { type: "boolean" } }, USAGE);
  const show = intOption("show", args.show, 20);
  const seed = intOption("seed", args.seed, TRAIN_DEFAULTS.seed);
  const dataset = await loadCatalogOnly(dataDir());
  const set = pseudoQueries(dataset.products, seed, PSEUDO_QUERY_BUDGETS);
  const step = set.queries.length / Math.max(1, Math.min(show, set.queries.length));
  const examples = Array.from({ length: Math.min(show, set.queries.length) }, (_, j) => set.queries[Math.floor(j * step)] as PseudoQuery);
  const shapes: Record<string, number> = {};
  for (const q of set.queries) shapes[q.shape] = (shapes[q.shape] ?? 0) + 1;
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  // What training counts relevant (training/supervision/supervision.ts): Exact, and Partial unless an attribute differs.
  const relevant = set.queries.map((q) => q.grades.exact.length + q.grades.partial.length);
  if (args.json) {
    console.log(
      JSON.stringify({
        products: dataset.products.length,
        seed,
        intents: set.intents,
        queries: set.queries.length,
        train: set.train.length,
        heldOut: set.heldOut.length,
        shapes,
        medianRelevant: median(relevant),
        examples: examples.map((q) => ({
          id: q.id,
          text: q.text,
          shape: q.shape,
          intent: q.intent,
          exact: q.grades.exact.length,
          partial: q.grades.partial.length,
          partialDiffers: q.grades.partialDiffers.length,
        })),
      }),
    );
    return;
  }
  console.log(
    `${set.queries.length} pseudo-queries (${set.train.length} training, ${set.heldOut.length} held out) from ${dataset.products.length} products, seed ${seed}: ` +
      `${set.intents.supported} intents supported, ${set.intents.inBudget} within the relevance budgets; shapes ${JSON.stringify(shapes)}; median relevant (Exact + Partial, no other value) ${median(relevant)}`,
  );
  if (examples.length === 0) return;
  console.log("\n| pseudo-query | type | attributes | Exact | Partial | Partial, another value |\n|---|---|---|---|---|---|");
  for (const q of examples) {
    const g = q.grades;
    console.log(`| ${q.text} | ${q.intent.type} | ${attributes(q)} | ${g.exact.length} | ${g.partial.length} | ${g.partialDiffers.length} |`);
  }
});
