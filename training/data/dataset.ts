/**
 * The one entry to COGR_DATA: a catalogue folder when its manifest
 * (catalog.json) is there, WANDS's three files otherwise. Commands ask this
 * module for products, queries and labels and never for file names, so WANDS
 * is one input among others. Queries and labels are optional in a catalogue:
 * without them every reader here answers "none" (an empty list, an empty map)
 * and each command decides what that means for it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CATALOG_FILES, catalogQueryFiles, isCatalogDir, readCatalogManifest, streamCatalogProducts } from "./catalog.js";
import { ProductFile } from "./product-file.js";
import { DataError, type Dataset, type Grade, type LabelStats, NO_LABELS, type Product, type Query } from "./types.js";
import { type IdRule, loadGrades, loadLabels, loadQueries, streamProducts, streamTsv, WANDS_FILES } from "./wands.js";

/** Where a data folder's parts are, and which reader they take. */
export interface DataSource {
  readonly dir: string;
  readonly kind: "catalog" | "wands";
  /** The file products stream from (for messages). */
  readonly products: string;
  readonly queries: string | null;
  readonly labels: string | null;
  readonly ids: IdRule;
}

/** COGR_DATA, else `data/wands` in the working directory. */
export function dataDir(): string {
  return process.env.COGR_DATA ?? "data/wands";
}

/** The folder's source; a folder with neither a catalogue nor WANDS is refused in one line saying how to get one. */
export function dataSource(dir: string): DataSource {
  if (isCatalogDir(dir)) {
    const files = catalogQueryFiles(dir, readCatalogManifest(dir));
    return { dir, kind: "catalog", products: join(dir, CATALOG_FILES.products), ...files, ids: "string" };
  }
  if (!existsSync(join(dir, WANDS_FILES.products))) {
    throw new DataError(
      `no data in ${dir}: neither a catalogue folder (${CATALOG_FILES.manifest}) nor WANDS's ${WANDS_FILES.products}; ` +
        "run `npm run import` or `npm run data`, or set COGR_DATA",
    );
  }
  // Queries and labels are optional here too (a shop's catalogue in WANDS's shape): absent files read as none.
  const optional = (f: string) => (existsSync(join(dir, f)) ? join(dir, f) : null);
  const [queries, labels] = [optional(WANDS_FILES.queries), optional(WANDS_FILES.labels)];
  const both = queries !== null && labels !== null;
  return { dir, kind: "wands", products: join(dir, WANDS_FILES.products), queries: both ? queries : null, labels: both ? labels : null, ids: "integer" };
}

export function hasLabels(src: DataSource): boolean {
  return src.queries !== null && src.labels !== null;
}

/** Products one at a time, in ascending id order for a catalogue (WANDS: file order). */
export function streamSourceProducts(src: DataSource): AsyncGenerator<Product> {
  return src.kind === "catalog" ? streamCatalogProducts(src.dir) : streamProducts(src.products);
}

export async function loadSourceQueries(src: DataSource): Promise<Query[]> {
  return src.queries === null ? [] : loadQueries(src.queries, src.ids);
}

export async function loadSourceLabels(
  src: DataSource,
  hasProduct: ReadonlySet<string> | { has(id: string): boolean },
): Promise<{ relevant: Map<string, Set<string>>; stats: LabelStats }> {
  return src.labels === null ? { relevant: new Map(), stats: NO_LABELS } : loadLabels(src.labels, hasProduct, src.ids);
}

export async function loadSourceGrades(src: DataSource): Promise<Map<string, Map<string, Grade>>> {
  return src.labels === null ? new Map() : loadGrades(src.labels);
}

/** Label rows as they are in the file (synth re-keys them). */
export async function* streamSourceLabelRows(src: DataSource): AsyncGenerator<{ query: string; product: string; label: string }> {
  if (src.labels === null) return;
  for await (const { row } of streamTsv(src.labels, ["query_id", "product_id", "label"])) {
    const [query, product, label] = row as [string, string, string];
    yield { query, product, label };
  }
}

/** How a loader holds the products: whole objects, or their text on disk (training/data/product-file.ts: training's way, issue 24). */
export interface LoadOptions {
  readonly productsOnDisk?: boolean;
}

/** Every product of a source, in its order. */
export async function loadSourceProducts(src: DataSource, opts: LoadOptions = {}): Promise<Product[]> {
  if (!opts.productsOnDisk) {
    const products: Product[] = [];
    for await (const p of streamSourceProducts(src)) products.push(p);
    return products;
  }
  const file = new ProductFile();
  for await (const p of streamSourceProducts(src)) file.add(p);
  return file.finish();
}

/** The whole dataset (training's input): in memory, or with the products' text on disk. */
export async function loadDataset(dir: string, opts: LoadOptions = {}): Promise<Dataset> {
  const src = dataSource(dir);
  const products = await loadSourceProducts(src, opts);
  const ids = new Set(products.map((p) => p.id));
  if (ids.size !== products.length) throw new DataError(`${src.products}: duplicate product_id`);
  const queries = await loadSourceQueries(src);
  const { relevant, stats } = await loadSourceLabels(src, ids);
  return { dir, products, queries, relevant, labelStats: stats };
}

/**
 * For commands that learn or measure from hand labels: a dataset without
 * queries or labels is refused in one line that says what to do instead.
 */
export function requireLabels(dataset: Pick<Dataset, "dir" | "queries" | "relevant">, command: string, instead: string): void {
  if (dataset.queries.length === 0 || dataset.relevant.size === 0) {
    throw new DataError(`${command} needs queries and relevance labels, and ${dataset.dir} has none: ${instead}`);
  }
}
