/**
 * WANDS loader (Chen et al., ECIR 2022). The files are tab-separated with a
 * header and never quoted (fields hold literal `"`), so they are read as plain
 * lines split on tabs. Relevant = Exact or Partial (paper, App. A).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getOrInsert } from "../../core/collections.js";

export const WANDS_FILES = { products: "product.csv", queries: "query.csv", labels: "label.csv" } as const;

export interface Product {
  readonly id: string;
  readonly name: string;
  readonly class: string;
  readonly category: string;
  readonly description: string;
  readonly features: ReadonlyArray<readonly [string, string]>;
}

export interface Query {
  readonly id: string;
  readonly text: string;
  readonly class: string;
}

export interface LabelStats {
  readonly rows: number;
  /** Labels whose product is not in the product table (a partial copy). */
  readonly droppedMissingProduct: number;
  readonly relevant: number;
}

export interface Dataset {
  readonly dir: string;
  readonly products: readonly Product[];
  readonly queries: readonly Query[];
  /** query id → ids of its relevant products present in the table. */
  readonly relevant: ReadonlyMap<string, ReadonlySet<string>>;
  readonly labelStats: LabelStats;
}

export class DataError extends Error {}

export const RELEVANT_LABELS: ReadonlySet<string> = new Set(["Exact", "Partial"]);
const LABELS: ReadonlySet<string> = new Set(["Exact", "Partial", "Irrelevant"]);

/** Rows of a header-first TSV file, each checked for the header's column count. */
export function readTsv(path: string, expectedHeader: readonly string[]): string[][] {
  if (!existsSync(path)) throw new DataError(`${path}: file not found`);
  const lines = readFileSync(path, "utf8").split(/\r?\n/);
  const header = (lines[0] ?? "").split("\t");
  const missing = expectedHeader.filter((h) => !header.includes(h));
  if (missing.length > 0) throw new DataError(`${path}:1: header lacks column(s) ${missing.join(", ")}`);
  const rows: string[][] = [];
  for (let j = 1; j < lines.length; j++) {
    const line = lines[j] as string;
    if (line === "") continue;
    const cols = line.split("\t");
    if (cols.length !== header.length) {
      throw new DataError(`${path}:${j + 1}: expected ${header.length} tab-separated fields, found ${cols.length}`);
    }
    rows.push(expectedHeader.map((h) => cols[header.indexOf(h)] as string));
  }
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

function requireId(path: string, line: number, what: string, value: string): string {
  if (!ID.test(value)) throw new DataError(`${path}:${line}: ${what} must be a non-negative integer, got ${JSON.stringify(value)}`);
  return value;
}

export function loadProducts(path: string): Product[] {
  const rows = readTsv(path, ["product_id", "product_name", "product_class", "category hierarchy", "product_description", "product_features"]);
  return rows.map(([id, name, cls, category, description, features], j) => ({
    id: requireId(path, j + 2, "product_id", id as string),
    name: name as string,
    class: cls as string,
    category: category as string,
    description: description as string,
    features: parseFeatures(features as string),
  }));
}

export function loadQueries(path: string): Query[] {
  const rows = readTsv(path, ["query_id", "query", "query_class"]);
  return rows.map(([id, text, cls], j) => {
    if ((text as string).trim() === "") throw new DataError(`${path}:${j + 2}: empty query`);
    return { id: requireId(path, j + 2, "query_id", id as string), text: text as string, class: cls as string };
  });
}

export function loadLabels(path: string, productIds: ReadonlySet<string>): { relevant: Map<string, Set<string>>; stats: LabelStats } {
  const rows = readTsv(path, ["query_id", "product_id", "label"]);
  const relevant = new Map<string, Set<string>>();
  let dropped = 0;
  let rel = 0;
  rows.forEach(([q, p, label], j) => {
    requireId(path, j + 2, "query_id", q as string);
    requireId(path, j + 2, "product_id", p as string);
    if (!LABELS.has(label as string)) throw new DataError(`${path}:${j + 2}: unknown label ${JSON.stringify(label)}`);
    if (!productIds.has(p as string)) {
      dropped++;
      return;
    }
    if (RELEVANT_LABELS.has(label as string)) {
      getOrInsert(relevant, q as string, () => new Set<string>()).add(p as string);
      rel++;
    }
  });
  return { relevant, stats: { rows: rows.length, droppedMissingProduct: dropped, relevant: rel } };
}

export type Grade = "Exact" | "Partial" | "Irrelevant";

/** query id → product id → its WANDS label (for the click model of `simulate-traffic`; relevance elsewhere is Exact or Partial). */
export function loadGrades(path: string): Map<string, Map<string, Grade>> {
  const grades = new Map<string, Map<string, Grade>>();
  readTsv(path, ["query_id", "product_id", "label"]).forEach(([q, p, label], j) => {
    if (!LABELS.has(label as string)) throw new DataError(`${path}:${j + 2}: unknown label ${JSON.stringify(label)}`);
    getOrInsert(grades, q as string, () => new Map<string, Grade>()).set(p as string, label as Grade);
  });
  return grades;
}

export function loadWands(dir: string): Dataset {
  for (const f of Object.values(WANDS_FILES)) {
    if (!existsSync(join(dir, f))) {
      throw new DataError(`no WANDS data in ${dir} (missing ${f}): run \`npm run data\` or set COGR_DATA to a WANDS folder`);
    }
  }
  const products = loadProducts(join(dir, WANDS_FILES.products));
  const ids = new Set(products.map((p) => p.id));
  if (ids.size !== products.length) throw new DataError(`${join(dir, WANDS_FILES.products)}: duplicate product_id`);
  const queries = loadQueries(join(dir, WANDS_FILES.queries));
  const { relevant, stats } = loadLabels(join(dir, WANDS_FILES.labels), ids);
  return { dir, products, queries, relevant, labelStats: stats };
}

/** COGR_DATA, else `data/wands` in the working directory. */
export function dataDir(): string {
  return process.env.COGR_DATA ?? "data/wands";
}
