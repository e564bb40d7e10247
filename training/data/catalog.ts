/**
 * The project's own catalogue folder, what `npm run import` writes and every
 * command reads through COGR_DATA:
 *
 *   catalog.json    the manifest: format "cogr-catalog", version, the field
 *                   mapping it was imported with, counts, facet names, the
 *                   rows skipped by reason, the products file's sha-256
 *   products.jsonl  one product a line ({id, name, class, category,
 *                   description, features: [[key, value]…], facets: {name: value}}),
 *                   in ascending id order (core/ids.ts compareIds), ids unique
 *   query.csv       optional: WANDS's shape (query_id, query, query_class; tab-separated)
 *   label.csv       optional: WANDS's shape (id, query_id, product_id, label)
 *
 * Ids are strings. A loader refuses an unknown format or version rather than
 * guess at it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { compareIds } from "../../core/ids.js";
import { readLines } from "../jsonl.js";
import { DataError, type Product } from "./types.js";

export const CATALOG_FORMAT = "cogr-catalog";
export const CATALOG_VERSION = 1;
export const CATALOG_FILES = { manifest: "catalog.json", products: "products.jsonl", queries: "query.csv", labels: "label.csv" } as const;

/** Why an input row was skipped (the manifest counts each). */
export const SKIP_REASONS = ["invalid-json", "not-an-object", "malformed-row", "missing-id", "invalid-id", "missing-title", "duplicate-id"] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** Which input field fills which product field; names may be dotted paths into JSON objects (training/import/mapping.ts). */
export const FieldMapping = z
  .object({
    id: z.string().min(1),
    title: z.string().min(1),
    text: z.array(z.string().min(1)).default([]),
    class: z.string().min(1).optional(),
    category: z.string().min(1).optional(),
    facets: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type FieldMapping = z.infer<typeof FieldMapping>;

const count = z.number().int().nonnegative();

export const CatalogManifest = z
  .object({
    format: z.literal(CATALOG_FORMAT),
    version: z.literal(CATALOG_VERSION),
    source: z.object({ products: z.string(), format: z.enum(["jsonl", "csv", "tsv"]), queries: z.string().nullable(), labels: z.string().nullable() }).strict(),
    mapping: FieldMapping,
    counts: z.object({ rows: count, products: count, skipped: count, queries: count.nullable(), labels: count.nullable() }).strict(),
    skipped: z.record(z.enum(SKIP_REASONS), count),
    maxBadPercent: z.number().min(0).max(100),
    facets: z.array(z.string()),
    files: z
      .object({
        products: z.literal(CATALOG_FILES.products),
        queries: z.literal(CATALOG_FILES.queries).nullable(),
        labels: z.literal(CATALOG_FILES.labels).nullable(),
      })
      .strict(),
    checksums: z.object({ [CATALOG_FILES.products]: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
  })
  .strict();
export type CatalogManifest = z.infer<typeof CatalogManifest>;

export function isCatalogDir(dir: string): boolean {
  return existsSync(join(dir, CATALOG_FILES.manifest));
}

/** The folder's manifest, checked: an unknown format or version is refused in one line, before its shape is looked at. */
export function readCatalogManifest(dir: string): CatalogManifest {
  const path = join(dir, CATALOG_FILES.manifest);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new DataError(`${path}: not a readable JSON manifest (${(e as Error).message})`);
  }
  const head = (raw ?? {}) as { format?: unknown; version?: unknown };
  if (head.format !== CATALOG_FORMAT) throw new DataError(`${path}: not a ${CATALOG_FORMAT} manifest (format ${JSON.stringify(head.format)})`);
  if (head.version !== CATALOG_VERSION) {
    throw new DataError(
      `${path}: unsupported ${CATALOG_FORMAT} version ${JSON.stringify(head.version)} (this build reads ${CATALOG_VERSION}); re-import with npm run import`,
    );
  }
  const parsed = CatalogManifest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DataError(`${path}: ${issue?.path.join(".") || "manifest"}: ${issue?.message ?? "invalid"}`);
  }
  const m = parsed.data;
  for (const f of [m.files.products, m.files.queries, m.files.labels]) {
    if (f !== null && !existsSync(join(dir, f))) throw new DataError(`${join(dir, f)}: file not found (${path} lists it)`);
  }
  return m;
}

/** A catalogue's query and label files, or null where it has none. */
export function catalogQueryFiles(dir: string, m: CatalogManifest): { queries: string | null; labels: string | null } {
  return { queries: m.files.queries && join(dir, m.files.queries), labels: m.files.labels && join(dir, m.files.labels) };
}

const isText = (v: unknown): v is string => typeof v === "string";

/** One products.jsonl line, checked field by field (a hand-edited file gets file:line, not a crash later). */
export function parseCatalogProduct(text: string, where: string): Product {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new DataError(`${where}: not valid JSON`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new DataError(`${where}: not a JSON object`);
  for (const f of ["id", "name", "class", "category", "description"] as const) {
    if (!isText(v[f])) throw new DataError(`${where}: field "${f}" must be a string`);
  }
  if (v.id === "") throw new DataError(`${where}: field "id" is empty`);
  const features = v.features;
  if (!Array.isArray(features) || !features.every((p) => Array.isArray(p) && p.length === 2 && isText(p[0]) && isText(p[1]))) {
    throw new DataError(`${where}: field "features" must be a list of [key, value] string pairs`);
  }
  const facets = v.facets ?? {};
  if (typeof facets !== "object" || facets === null || Array.isArray(facets) || !Object.values(facets).every(isText)) {
    throw new DataError(`${where}: field "facets" must be an object of strings`);
  }
  return {
    id: v.id as string,
    name: v.name as string,
    class: v.class as string,
    category: v.category as string,
    description: v.description as string,
    features: features as Array<[string, string]>,
    facets: facets as Record<string, string>,
  };
}

/**
 * Products one at a time, in file order, which must be ascending id order with
 * no repeats: round 0 streams them into an index whose ordinals follow ids.
 */
export async function* streamCatalogProducts(dir: string): AsyncGenerator<Product> {
  const path = join(dir, CATALOG_FILES.products);
  if (!existsSync(path)) throw new DataError(`${path}: file not found`);
  let line = 0;
  let prev: string | null = null;
  for (const text of readLines(path)) {
    line++;
    if (text === "") continue;
    const p = parseCatalogProduct(text, `${path}:${line}`);
    if (prev !== null && compareIds(prev, p.id) >= 0) {
      throw new DataError(
        `${path}:${line}: id ${JSON.stringify(p.id)} is not after ${JSON.stringify(prev)} (products must be in ascending id order, no repeats: re-import with npm run import)`,
      );
    }
    prev = p.id;
    yield p;
  }
}
