/**
 * `npm run import`, as a function (scripts/import.ts runs it; a test runs it with an `onRow` hook from an
 * entry of its own, test/support/import-interrupted.ts): `npm run import -- --products FILE [--format jsonl|csv|tsv] --id FIELD --title FIELD [--text FIELD]…
 *   [--class FIELD] [--category FIELD] [--facet FIELD]… [--queries FILE --labels FILE] [--max-bad PCT] --out DIR`
 * or `npm run import -- --map cogr.catalog.json` (the same as one JSON object; flags given beside it win).
 * Writes the catalogue folder every command reads through COGR_DATA (training/import/import.ts).
 */
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { importCatalog, tempDirFor } from "../../training/import/import.js";
import { type ImportSpec, resolveSpec, SpecError } from "../../training/import/mapping.js";
import { parseCli, UsageError } from "../cli.js";

const USAGE =
  "npm run import -- --products FILE [--format jsonl|csv|tsv] --id FIELD --title FIELD [--text FIELD]… [--class FIELD] [--category FIELD] " +
  "[--facet FIELD]… [--queries FILE --labels FILE] [--max-bad PCT] --out DIR   (or --map cogr.catalog.json)";

export interface ImportHooks {
  /** Called with the count of rows read so far (tests: a real SIGINT at a row of their choice). */
  readonly onRow?: ImportSpec["onRow"];
}

export async function importCommand(hooks: ImportHooks = {}): Promise<void> {
  const args = parseCli(
    {
      map: { type: "string" },
      products: { type: "string" },
      format: { type: "string" },
      id: { type: "string" },
      title: { type: "string" },
      text: { type: "string", multiple: true },
      class: { type: "string" },
      category: { type: "string" },
      facet: { type: "string", multiple: true },
      queries: { type: "string" },
      labels: { type: "string" },
      "max-bad": { type: "string" },
      out: { type: "string" },
    },
    USAGE,
  );
  let spec: ImportSpec;
  try {
    spec = resolveSpec({ ...args, maxBad: args["max-bad"] });
  } catch (e) {
    if (e instanceof SpecError) throw new UsageError(`${e.message}\nusage: ${USAGE}`);
    throw e;
  }
  // Ctrl-C leaves no half-written folder: the temporary one beside --out goes, --out is untouched.
  const tmp = tempDirFor(spec.out);
  const interrupted = (signal: NodeJS.Signals) => {
    rmSync(tmp, { recursive: true, force: true });
    process.stderr.write(`error: import interrupted (${signal}); ${spec.out} left as it was\n`);
    process.exit(130);
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  if (hooks.onRow) spec = { ...spec, onRow: hooks.onRow };
  const t0 = performance.now();
  const r = await importCatalog(spec);
  for (const line of r.examples) console.error(`skipped ${line}`);
  const skipped = Object.entries(r.skipped)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason} ${n}`);
  const extra = r.queries === null ? "no queries or labels" : `${r.queries} queries, ${r.labels} labels (${r.labelsOfAbsentProducts} of absent products)`;
  console.log(
    `imported ${r.products} products of ${r.rows} rows into ${r.out}; skipped ${r.rows - r.products}${skipped.length > 0 ? ` (${skipped.join(", ")})` : ""}; ` +
      `${extra}; ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}
