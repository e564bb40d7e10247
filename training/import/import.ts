/**
 * `npm run import`: any catalogue (JSON Lines, CSV, TSV; its own field names,
 * string ids, any order) into the project's catalogue folder
 * (training/data/catalog.ts). One streamed pass validates and maps every row
 * into a spool; the sorted writer then writes products.jsonl in id order.
 * Bad rows are skipped and counted by reason; more than --max-bad percent of
 * them fails the import. Everything is written into a temporary folder beside
 * --out, renamed into place only when complete, and removed on failure (the
 * CLI removes it on Ctrl-C too): there is never a half-written catalogue.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { CATALOG_FILES, CATALOG_FORMAT, CATALOG_VERSION, type CatalogManifest, isCatalogDir, SKIP_REASONS, type SkipReason } from "../data/catalog.js";
import { streamTsv } from "../data/wands.js";
import { LineWriter } from "../jsonl.js";
import { IMPORT_LIMITS, type ImportSpec, mappedFields, toProduct } from "./mapping.js";
import { ImportError, type InputRow, readDelimitedRows, readJsonlRows, requireFile } from "./readers.js";
import { SortedSpool } from "./sorted-writer.js";

export interface ImportReport {
  readonly out: string;
  readonly rows: number;
  readonly products: number;
  readonly skipped: Readonly<Record<SkipReason, number>>;
  /** The first few skipped rows of each reason, one line each (file:line: field: why). */
  readonly examples: readonly string[];
  readonly queries: number | null;
  readonly labels: number | null;
  /** Labels naming a product the catalogue does not hold (kept; training drops them and says so). */
  readonly labelsOfAbsentProducts: number;
}

/** Where an import into `out` writes until it is complete: beside it, so the final rename stays on one file system. */
export function tempDirFor(out: string): string {
  const abs = resolve(out);
  return join(dirname(abs), `.${basename(abs)}.import-${process.pid}`);
}

/** --out may be absent, empty, or an earlier catalogue (replaced whole); anything else is someone's data and is left alone. */
function checkOut(out: string): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new ImportError(`--out ${out} is a file: name a folder`);
  if (readdirSync(out).length > 0 && !isCatalogDir(out)) {
    throw new ImportError(`--out ${out} is a folder that holds files but no ${CATALOG_FILES.manifest}: refusing to replace it (choose another --out)`);
  }
}

function rowsOf(spec: ImportSpec): AsyncGenerator<InputRow> {
  if (spec.format === "jsonl") return readJsonlRows(spec.products);
  // Every mapped field must be a column: a misspelt one would otherwise be silently empty in every row.
  return readDelimitedRows(spec.products, spec.format === "csv" ? "," : "\t", mappedFields(spec.mapping));
}

export async function importCatalog(spec: ImportSpec): Promise<ImportReport> {
  requireFile(spec.products, "--products");
  if (spec.queries !== null) requireFile(spec.queries, "--queries");
  if (spec.labels !== null) requireFile(spec.labels, "--labels");
  checkOut(spec.out);
  const tmp = tempDirFor(spec.out);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const spool = new SortedSpool(join(tmp, ".spool"));
  try {
    const report = await importInto(spec, tmp, spool);
    rmSync(join(tmp, ".spool"), { force: true });
    swapIn(tmp, spec.out);
    return report;
  } catch (e) {
    spool.abandon();
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

async function importInto(spec: ImportSpec, tmp: string, spool: SortedSpool): Promise<ImportReport> {
  const skipped = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>;
  const examples: string[] = [];
  let first: { line: number; text: string } | null = null;
  const skip = (reason: SkipReason, line: number, text: string) => {
    skipped[reason]++;
    if (skipped[reason] <= IMPORT_LIMITS.examplesPerReason) examples.push(text);
    if (first === null || line < first.line) first = { line, text };
  };
  const where = (line: number) => `${spec.products}:${line}`;
  let rows = 0;
  for await (const row of rowsOf(spec)) {
    rows++;
    const waiting = spec.onRow?.(rows);
    if (waiting) await waiting;
    if ("bad" in row) {
      skip(row.bad.reason, row.line, `${where(row.line)}: ${row.bad.message}`);
      continue;
    }
    const r = toProduct(row.record, spec.mapping);
    if (r.ok) spool.add(r.id, row.line, r.json);
    else skip(r.reason, row.line, `${where(row.line)}: field ${JSON.stringify(r.field)}: ${r.message}`);
  }
  if (rows === 0) throw new ImportError(`${spec.products}: no rows to import`);
  const written = await spool.writeSorted(join(tmp, CATALOG_FILES.products), (d) =>
    skip(
      "duplicate-id",
      d.line,
      `${where(d.line)}: field ${JSON.stringify(spec.mapping.id)}: duplicate id ${JSON.stringify(d.id)}, first at ${where(d.firstLine)}`,
    ),
  );
  const bad = rows - written.products;
  const share = (bad / rows) * 100;
  if (bad > 0 && share > spec.maxBadPercent) {
    const f = first as { line: number; text: string } | null;
    throw new ImportError(`${f?.text ?? spec.products}; ${bad} of ${rows} rows bad (${share.toFixed(1)} %), more than --max-bad ${spec.maxBadPercent} %`);
  }
  const copied = spec.queries !== null && spec.labels !== null ? await copyQueriesAndLabels(spec.queries, spec.labels, tmp, spool) : null;
  const manifest: CatalogManifest = {
    format: CATALOG_FORMAT,
    version: CATALOG_VERSION,
    source: { products: spec.products, format: spec.format, queries: spec.queries, labels: spec.labels },
    mapping: spec.mapping,
    counts: { rows, products: written.products, skipped: bad, queries: copied?.queries ?? null, labels: copied?.labels ?? null },
    skipped,
    maxBadPercent: spec.maxBadPercent,
    facets: spec.mapping.facets,
    files: { products: CATALOG_FILES.products, queries: copied ? CATALOG_FILES.queries : null, labels: copied ? CATALOG_FILES.labels : null },
    checksums: { [CATALOG_FILES.products]: written.sha256 },
  };
  // The manifest last: a folder without it is no catalogue to any reader.
  writeFileSync(join(tmp, CATALOG_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  return {
    out: spec.out,
    rows,
    products: written.products,
    skipped,
    examples,
    queries: copied?.queries ?? null,
    labels: copied?.labels ?? null,
    labelsOfAbsentProducts: copied?.absent ?? 0,
  };
}

const LABELS: ReadonlySet<string> = new Set(["Exact", "Partial", "Irrelevant"]);
// biome-ignore lint/suspicious/noControlCharactersInRegex: an id with a control character cannot be a catalogue id
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Queries and labels in WANDS's tab-separated shapes, checked row by row
 * (a bad one stops the import with its file:line: they are small and
 * hand-made) and written in the same shapes into the catalogue.
 */
async function copyQueriesAndLabels(
  queriesPath: string,
  labelsPath: string,
  tmp: string,
  products: Pick<SortedSpool, "has">,
): Promise<{ queries: number; labels: number; absent: number }> {
  const id = (path: string, line: number, field: string, v: string) => {
    if (v === "" || CONTROL.test(v)) throw new ImportError(`${path}:${line}: field "${field}": ${v === "" ? "missing" : "holds a control character"}`);
    return v;
  };
  const qout = new LineWriter(join(tmp, CATALOG_FILES.queries));
  qout.line("query_id\tquery\tquery_class");
  let queries = 0;
  try {
    for await (const { line, row } of streamTsv(queriesPath, ["query_id", "query", "query_class"])) {
      const [q, text, cls] = row as [string, string, string];
      if (text.trim() === "") throw new ImportError(`${queriesPath}:${line}: field "query": empty query`);
      qout.line([id(queriesPath, line, "query_id", q), text, cls].join("\t"));
      queries++;
    }
  } finally {
    qout.close();
  }
  const lout = new LineWriter(join(tmp, CATALOG_FILES.labels));
  lout.line("id\tquery_id\tproduct_id\tlabel");
  let labels = 0;
  let absent = 0;
  try {
    for await (const { line, row } of streamTsv(labelsPath, ["query_id", "product_id", "label"])) {
      const [q, p, label] = row as [string, string, string];
      if (!LABELS.has(label))
        throw new ImportError(`${labelsPath}:${line}: field "label": unknown label ${JSON.stringify(label)} (Exact, Partial or Irrelevant)`);
      const pid = id(labelsPath, line, "product_id", p.trim());
      if (!products.has(pid)) absent++;
      lout.line([String(labels), id(labelsPath, line, "query_id", q), pid, label].join("\t"));
      labels++;
    }
  } finally {
    lout.close();
  }
  return { queries, labels, absent };
}

/** tmp becomes out; an earlier catalogue there is moved aside first and removed after. */
function swapIn(tmp: string, out: string): void {
  if (existsSync(out)) {
    const old = `${tmp}.old`;
    renameSync(out, old);
    renameSync(tmp, out);
    rmSync(old, { recursive: true, force: true });
  } else {
    mkdirSync(dirname(resolve(out)), { recursive: true });
    renameSync(tmp, out);
  }
}
