/**
 * WANDS's three files (Chen et al., ECIR 2022), one of the two folders
 * COGR_DATA may hold (training/data/dataset.ts picks; the other is an imported
 * catalogue, training/data/catalog.ts). The files are tab-separated with a
 * header and never quoted (fields hold literal `"`): csv-parse streams them
 * with quoting off, so a catalogue of any size is read row by row and never
 * held as one string. Relevant = Exact or Partial (paper, App. A).
 */
import { createReadStream, existsSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse";
import { getOrInsert } from "../../core/collections.js";
import { DataError, type Dataset, type Grade, type LabelStats, type Product, type Query } from "./types.js";

// The shared types live in types.ts (a catalogue folder has them too); re-exported for the modules that import them from here.
export { DataError, type Dataset, type Grade, type LabelStats, type Product, type Query } from "./types.js";

export const WANDS_FILES = { products: "product.csv", queries: "query.csv", labels: "label.csv" } as const;

/** The upstream product.csv header, in its order. */
export const PRODUCT_HEADER = [
  "product_id",
  "product_name",
  "product_class",
  "category hierarchy",
  "product_description",
  "product_features",
  "rating_count",
  "average_rating",
  "review_count",
] as const;

export const RELEVANT_LABELS: ReadonlySet<string> = new Set(["Exact", "Partial"]);
const LABELS: ReadonlySet<string> = new Set(["Exact", "Partial", "Irrelevant"]);

export const TSV_LIMITS = {
  /** One row may hold a field this long; a longer row is refused with its line, never buffered without bound. */
  maxRowBytes: 16 * 2 ** 20,
} as const;

/**
 * Rows of a header-first TSV file, streamed, each checked for the header's
 * column count and reordered to expectedHeader. `line` is the 1-based line
 * of the row, for file:line errors.
 */
export async function* streamTsv(path: string, expectedHeader: readonly string[]): AsyncGenerator<{ line: number; row: string[] }> {
  if (!existsSync(path)) throw new DataError(`${path}: file not found`);
  const parser = createReadStream(path).pipe(
    parse({ delimiter: "\t", quote: false, relax_column_count: true, skip_empty_lines: true, info: true, max_record_size: TSV_LIMITS.maxRowBytes }),
  );
  let header: string[] | null = null;
  let positions: number[] = [];
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (header === null) {
        header = record;
        const missing = expectedHeader.filter((h) => !record.includes(h));
        if (missing.length > 0) throw new DataError(`${path}:${info.lines}: header lacks column(s) ${missing.join(", ")}`);
        positions = expectedHeader.map((h) => record.indexOf(h));
        continue;
      }
      if (record.length !== header.length) {
        throw new DataError(`${path}:${info.lines}: expected ${header.length} tab-separated fields, found ${record.length}`);
      }
      yield { line: info.lines, row: positions.map((p) => record[p] as string) };
    }
  } catch (e) {
    if (e instanceof DataError) throw e;
    const lines = (e as { lines?: number }).lines;
    throw new DataError(`${path}${lines ? `:${lines}` : ""}: ${(e as Error).message}`);
  } finally {
    parser.destroy();
  }
  if (header === null) throw new DataError(`${path}:1: header lacks column(s) ${expectedHeader.join(", ")}`);
}

/** Every row of a (small) TSV file. */
export async function readTsv(path: string, expectedHeader: readonly string[]): Promise<Array<{ line: number; row: string[] }>> {
  const rows: Array<{ line: number; row: string[] }> = [];
  for await (const r of streamTsv(path, expectedHeader)) rows.push(r);
  return rows;
}

/** `key : value|key:value` → pairs; pieces without a value are dropped. */
export function parseFeatures(raw: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const piece of raw.split("|")) {
    const at = piece.indexOf(":");
    if (at < 0) continue;
    const k = piece.slice(0, at).trim();
    const v = piece.slice(at + 1).trim();
    if (v !== "") out.push([k, v]);
  }
  return out;
}

const ID = /^[0-9]+$/;

/** WANDS's ids are integers; a catalogue folder's are any non-empty strings (its query.csv and label.csv share this reader). */
export type IdRule = "integer" | "string";

function requireId(path: string, line: number, what: string, value: string, rule: IdRule = "integer"): string {
  if (rule === "string" ? value === "" : !ID.test(value)) {
    throw new DataError(`${path}:${line}: ${what} must be ${rule === "string" ? "non-empty" : "a non-negative integer"}, got ${JSON.stringify(value)}`);
  }
  return value;
}

const PRODUCT_COLUMNS = ["product_id", "product_name", "product_class", "category hierarchy", "product_description", "product_features"] as const;

/** Products one at a time, in file order. */
export async function* streamProducts(path: string): AsyncGenerator<Product> {
  for await (const { line, row } of streamTsv(path, PRODUCT_COLUMNS)) {
    const [id, name, cls, category, description, features] = row as [string, string, string, string, string, string];
    yield { id: requireId(path, line, "product_id", id), name, class: cls, category, description, features: parseFeatures(features) };
  }
}

export async function loadProducts(path: string): Promise<Product[]> {
  const out: Product[] = [];
  for await (const p of streamProducts(path)) out.push(p);
  return out;
}

export async function loadQueries(path: string, ids: IdRule = "integer"): Promise<Query[]> {
  return (await readTsv(path, ["query_id", "query", "query_class"])).map(({ line, row: [id, text, cls] }) => {
    if ((text as string).trim() === "") throw new DataError(`${path}:${line}: empty query`);
    return { id: requireId(path, line, "query_id", id as string, ids), text: text as string, class: cls as string };
  });
}

/** Relevant labels, restricted to the products `hasProduct` knows (a set of ids, or any membership test). */
export async function loadLabels(
  path: string,
  hasProduct: ReadonlySet<string> | { has(id: string): boolean },
  ids: IdRule = "integer",
): Promise<{ relevant: Map<string, Set<string>>; stats: LabelStats }> {
  const relevant = new Map<string, Set<string>>();
  let rows = 0;
  let dropped = 0;
  let rel = 0;
  for await (const { line, row } of streamTsv(path, ["query_id", "product_id", "label"])) {
    const [q, p, label] = row as [string, string, string];
    rows++;
    requireId(path, line, "query_id", q, ids);
    requireId(path, line, "product_id", p, ids);
    if (!LABELS.has(label)) throw new DataError(`${path}:${line}: unknown label ${JSON.stringify(label)}`);
    if (!hasProduct.has(p)) {
      dropped++;
      continue;
    }
    if (RELEVANT_LABELS.has(label)) {
      getOrInsert(relevant, q, () => new Set<string>()).add(p);
      rel++;
    }
  }
  return { relevant, stats: { rows, droppedMissingProduct: dropped, relevant: rel } };
}

/** query id → product id → its WANDS label (for the click model of `simulate-traffic`; relevance elsewhere is Exact or Partial). */
export async function loadGrades(path: string): Promise<Map<string, Map<string, Grade>>> {
  const grades = new Map<string, Map<string, Grade>>();
  for await (const { line, row } of streamTsv(path, ["query_id", "product_id", "label"])) {
    const [q, p, label] = row as [string, string, string];
    if (!LABELS.has(label)) throw new DataError(`${path}:${line}: unknown label ${JSON.stringify(label)}`);
    getOrInsert(grades, q, () => new Map<string, Grade>()).set(p, label as Grade);
  }
  return grades;
}

export function requireWandsFiles(dir: string): void {
  for (const f of Object.values(WANDS_FILES)) {
    if (!existsSync(join(dir, f))) {
      throw new DataError(`no WANDS data in ${dir} (missing ${f}): run \`npm run data\` or set COGR_DATA to a WANDS folder`);
    }
  }
}

export async function loadWands(dir: string): Promise<Dataset> {
  requireWandsFiles(dir);
  const products = await loadProducts(join(dir, WANDS_FILES.products));
  const ids = new Set(products.map((p) => p.id));
  if (ids.size !== products.length) throw new DataError(`${join(dir, WANDS_FILES.products)}: duplicate product_id`);
  const queries = await loadQueries(join(dir, WANDS_FILES.queries));
  const { relevant, stats } = await loadLabels(join(dir, WANDS_FILES.labels), ids);
  return { dir, products, queries, relevant, labelStats: stats };
}
