/**
 * What `npm run import` is asked to do (flags, or a mapping file with the
 * same content) and how one input row becomes one catalogue product.
 *
 * Field names are looked up whole first, then as dotted paths into JSON
 * objects: `attributes.color` is the key "attributes.color" when a row has
 * one, else `color` inside `attributes`. CSV/TSV columns are matched whole.
 *
 * Values: strings as they are; numbers and booleans as JSON writes them;
 * null or absent as empty; lists joined with ", " (a list-valued category is
 * a path, joined with " / " as WANDS writes its category hierarchy, which
 * core/extract.ts cuts at "/"). An object in a --text field gives key: value
 * pairs, as WANDS's product_features (nested objects give dotted keys, lists
 * of objects their pairs in order); any other value is text, and the --text
 * fields' texts, joined by line breaks, are the description.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { FieldMapping, type SkipReason } from "../data/catalog.js";

export const IMPORT_LIMITS = {
  /** The search API's item route takes ids up to this long (workers/search/api/schemas.ts ItemParams). */
  idMaxChars: 256,
  /** One input row may be this long; a longer one is refused with its line, never buffered without bound. */
  maxRowBytes: 16 * 2 ** 20,
  /** Skipped rows printed per reason (the rest are counted). */
  examplesPerReason: 3,
  maxBadPercentDefault: 1,
} as const;

export const FORMATS = ["jsonl", "csv", "tsv"] as const;
export type Format = (typeof FORMATS)[number];

export interface ImportSpec {
  readonly products: string;
  readonly format: Format;
  readonly mapping: FieldMapping;
  readonly queries: string | null;
  readonly labels: string | null;
  readonly maxBadPercent: number;
  readonly out: string;
  /** Called after each input row with the count so far; the import waits for a promise it returns. */
  readonly onRow?: (rows: number) => void | Promise<void>;
}

/** A mistake in what was asked (a flag, the mapping file): the CLI answers it as a usage error. */
export class SpecError extends Error {}

/** cogr.catalog.json: the flags as one JSON object; paths are relative to the file's folder. */
export const MapFile = z
  .object({
    $schema: z.string().optional(),
    products: z.string().min(1).optional(),
    format: z.enum(FORMATS).optional(),
    id: z.string().min(1).optional(),
    title: z.string().min(1).optional(),
    text: z.array(z.string().min(1)).optional(),
    class: z.string().min(1).optional(),
    category: z.string().min(1).optional(),
    facets: z.array(z.string().min(1)).optional(),
    queries: z.string().min(1).optional(),
    labels: z.string().min(1).optional(),
    maxBad: z.number().min(0).max(100).optional(),
    out: z.string().min(1).optional(),
  })
  .strict();
export type MapFile = z.infer<typeof MapFile>;

export interface ImportFlags {
  readonly map?: string;
  readonly products?: string;
  readonly format?: string;
  readonly id?: string;
  readonly title?: string;
  readonly text?: readonly string[];
  readonly class?: string;
  readonly category?: string;
  readonly facet?: readonly string[];
  readonly queries?: string;
  readonly labels?: string;
  readonly maxBad?: string;
  readonly out?: string;
}

export function readMapFile(path: string): MapFile {
  if (!existsSync(path)) throw new SpecError(`--map ${path}: file not found`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new SpecError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  const parsed = MapFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.join(".") || (issue && "keys" in issue ? (issue.keys as string[]).join(", ") : "");
    throw new SpecError(`${path}: ${at ? `${at}: ` : ""}${issue?.message ?? "invalid mapping"}`);
  }
  // Paths in the file are relative to it, so a mapping travels with its data.
  const here = dirname(path);
  const rel = (p: string | undefined) => (p === undefined ? undefined : resolve(here, p));
  return { ...parsed.data, products: rel(parsed.data.products), queries: rel(parsed.data.queries), labels: rel(parsed.data.labels), out: rel(parsed.data.out) };
}

function formatOf(format: string | undefined, products: string): Format {
  if (format !== undefined) {
    if (!(FORMATS as readonly string[]).includes(format)) throw new SpecError(`--format must be jsonl, csv or tsv, got ${JSON.stringify(format)}`);
    return format as Format;
  }
  const ext = /\.(jsonl|ndjson|csv|tsv|tab)$/i.exec(products)?.[1]?.toLowerCase();
  if (ext === "jsonl" || ext === "ndjson") return "jsonl";
  if (ext === "csv" || ext === "tsv") return ext;
  if (ext === "tab") return "tsv";
  throw new SpecError(`--format is required: ${products} has no .jsonl, .csv or .tsv extension`);
}

/** Flags over the mapping file (a flag given wins; a list flag replaces the file's list). */
export function resolveSpec(flags: ImportFlags): ImportSpec {
  const file: MapFile = flags.map !== undefined ? readMapFile(flags.map) : {};
  const products = flags.products ?? file.products;
  if (products === undefined) throw new SpecError("--products FILE is required (or `products` in --map)");
  const out = flags.out ?? file.out;
  if (out === undefined) throw new SpecError("--out DIR is required (or `out` in --map)");
  const id = flags.id ?? file.id;
  const title = flags.title ?? file.title;
  if (id === undefined) throw new SpecError("--id FIELD is required (or `id` in --map)");
  if (title === undefined) throw new SpecError("--title FIELD is required (or `title` in --map)");
  const queries = flags.queries ?? file.queries ?? null;
  const labels = flags.labels ?? file.labels ?? null;
  if ((queries === null) !== (labels === null)) throw new SpecError("--queries and --labels go together");
  let maxBadPercent: number = file.maxBad ?? IMPORT_LIMITS.maxBadPercentDefault;
  if (flags.maxBad !== undefined) {
    maxBadPercent = Number(flags.maxBad);
    if (flags.maxBad.trim() === "" || !Number.isFinite(maxBadPercent) || maxBadPercent < 0 || maxBadPercent > 100) {
      throw new SpecError(`--max-bad must be a percentage in 0..100, got ${JSON.stringify(flags.maxBad)}`);
    }
  }
  const mapping = FieldMapping.parse({
    id,
    title,
    text: flags.text ?? file.text ?? [],
    facets: flags.facet ?? file.facets ?? [],
    ...((flags.class ?? file.class) !== undefined ? { class: flags.class ?? file.class } : {}),
    ...((flags.category ?? file.category) !== undefined ? { category: flags.category ?? file.category } : {}),
  });
  return { products, format: formatOf(flags.format ?? file.format, products), mapping, queries, labels, maxBadPercent, out };
}

/** Every field the mapping reads, each once (a CSV header must hold them all). */
export function mappedFields(m: FieldMapping): string[] {
  return [...new Set([m.id, m.title, ...m.text, ...(m.class ? [m.class] : []), ...(m.category ? [m.category] : []), ...m.facets])];
}

type Row = Record<string, unknown>;

const isObject = (v: unknown): v is Row => typeof v === "object" && v !== null && !Array.isArray(v);

/** A row's field: the whole name first, then a dotted path. */
export function fieldValue(row: Row, name: string): unknown {
  if (Object.hasOwn(row, name)) return row[name];
  if (!name.includes(".")) return undefined;
  let at: unknown = row;
  for (const part of name.split(".")) {
    if (!isObject(at) || !Object.hasOwn(at, part)) return undefined;
    at = at[part];
  }
  return at;
}

/** A value as text: lists joined with `sep`, objects as "key: value" pairs. */
export function textOf(v: unknown, sep = ", "): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v))
    return v
      .map((x) => textOf(x, ", "))
      .filter((t) => t !== "")
      .join(sep);
  if (isObject(v))
    return pairsOf(v, "", [])
      .map(([k, x]) => `${k}: ${x}`)
      .join(", ");
  return "";
}

/** An object's key: value pairs, nested keys dotted, empty values dropped (as WANDS's feature parser drops them). */
function pairsOf(v: Row, prefix: string, out: Array<[string, string]>): Array<[string, string]> {
  for (const [k, x] of Object.entries(v)) {
    const key = `${prefix}${k}`.trim();
    if (isObject(x)) pairsOf(x, `${key}.`, out);
    else if (Array.isArray(x) && x.some(isObject)) for (const e of x) isObject(e) && pairsOf(e, `${key}.`, out);
    else {
      const t = textOf(x).trim();
      if (t !== "") out.push([key, t]);
    }
  }
  return out;
}

/** A --text field's contribution: text for the description, pairs for the features. */
function textAndPairs(v: unknown, texts: string[], pairs: Array<[string, string]>): void {
  if (isObject(v)) pairsOf(v, "", pairs);
  else if (Array.isArray(v) && v.some(isObject)) {
    for (const e of v) textAndPairs(e, texts, pairs);
  } else {
    const t = textOf(v);
    if (t.trim() !== "") texts.push(t);
  }
}

export type RowResult =
  | { readonly ok: true; readonly id: string; readonly json: string }
  | { readonly ok: false; readonly reason: SkipReason; readonly field: string; readonly message: string };

// Tabs and line breaks would break the catalogue's tab-separated label file; other control characters have no place in an id.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused here
const CONTROL = /[\u0000-\u001f\u007f]/;

function idOf(v: unknown): { id: string } | { reason: SkipReason; message: string } {
  if (v === undefined || v === null || v === "") return { reason: "missing-id", message: "missing id" };
  if (typeof v !== "string" && !(typeof v === "number" && Number.isFinite(v))) {
    return { reason: "invalid-id", message: `id must be a string or a number, got ${Array.isArray(v) ? "a list" : typeof v}` };
  }
  const id = String(v).trim();
  if (id === "") return { reason: "missing-id", message: "missing id" };
  if (id.length > IMPORT_LIMITS.idMaxChars) return { reason: "invalid-id", message: `id longer than ${IMPORT_LIMITS.idMaxChars} characters` };
  if (CONTROL.test(id)) return { reason: "invalid-id", message: "id holds a tab, line break or other control character" };
  return { id };
}

/** One row → its products.jsonl line, or why it is skipped (and which field). */
export function toProduct(row: Row, m: FieldMapping): RowResult {
  const id = idOf(fieldValue(row, m.id));
  if ("reason" in id) return { ok: false, reason: id.reason, field: m.id, message: id.message };
  const name = textOf(fieldValue(row, m.title)).trim();
  if (name === "") return { ok: false, reason: "missing-title", field: m.title, message: "missing title" };
  const texts: string[] = [];
  const features: Array<[string, string]> = [];
  for (const f of m.text) textAndPairs(fieldValue(row, f), texts, features);
  const facets: Record<string, string> = {};
  for (const f of m.facets) {
    const t = textOf(fieldValue(row, f)).trim();
    if (t !== "") facets[f] = t;
  }
  const product = {
    id: id.id,
    name,
    class: m.class ? textOf(fieldValue(row, m.class)).trim() : "",
    category: m.category ? textOf(fieldValue(row, m.category), " / ").trim() : "",
    description: texts.join("\n"),
    features,
    facets,
  };
  return { ok: true, id: id.id, json: JSON.stringify(product) };
}
