/**
 * Facet columns: per item ordinal, one small integer per field (its value's
 * code in the field's dictionary), so filters and facet counts read an array
 * and never an item row (issue 25 §2, §5).
 *
 *   class            the item's class
 *   category.lvlK    the first K+1 segments of its "/"-separated category path,
 *                    joined with " / " (Algolia's hierarchical facets)
 *   NAME             each `--facet` field an import named (RoundItem.facets)
 *
 * A column is a pure function of items.jsonl, so publish derives it for any
 * round, also one written before columns existed. Code 0 is "no value";
 * code c ≥ 1 is `values[c - 1]`. Codes are stored 1, 2 or 4 bytes wide, and
 * cut into chunks of `chunkItems` ordinals for KV (one value per chunk).
 */
import { fromBase64, toBase64 } from "./base64.js";
import type { RoundItem } from "./round-format.js";

export const COLUMNS_FORMAT = "cogr-columns";
export const COLUMNS_VERSION = 1;

export const COLUMN_LIMITS = {
  /** Ordinals per stored chunk (one KV value each): 64 KiB–256 KiB of codes. */
  chunkItems: 65_536,
  /** Category levels kept (WANDS paths are at most 8 deep). */
  categoryLevelsMax: 8,
  /** A field with more distinct values is not a facet (an id-like field); it is left out and named in `omitted`. */
  valuesPerColumnMax: 65_535,
  /** Facet values returned per field. */
  facetTop: 20,
} as const;

export const CLASS_COLUMN = "class";
export const CATEGORY_FIELD = "category";
export const categoryLevelColumn = (level: number) => `${CATEGORY_FIELD}.lvl${level}`;
/** Names an import's facet may not take: the built-in columns'. */
export const isReservedColumn = (name: string) => name === CLASS_COLUMN || name === CATEGORY_FIELD || name.startsWith(`${CATEGORY_FIELD}.`);

export type ColumnWidth = 1 | 2 | 4;
export type Codes = Uint8Array | Uint16Array | Uint32Array;

export interface ColumnMeta {
  readonly name: string;
  /** The dictionary: numeric fields ascending by number, others in code-unit order. */
  readonly values: readonly string[];
  readonly width: ColumnWidth;
  /** Every value is a decimal number, so the field takes ranges (`4..5`). */
  readonly numeric: boolean;
}

/** The KV value `col:…:meta`: every column's dictionary; the codes are in chunk values beside it. */
export interface ColumnsMeta {
  readonly format: typeof COLUMNS_FORMAT;
  readonly version: number;
  readonly itemCount: number;
  readonly chunkItems: number;
  readonly columns: readonly ColumnMeta[];
  /** Fields left out: more distinct values than valuesPerColumnMax. */
  readonly omitted: readonly string[];
}

export interface Columns {
  readonly meta: ColumnsMeta;
  /** Codes per column name, one per ordinal. */
  readonly codes: ReadonlyMap<string, Codes>;
}

/** A category path's segments: split at "/", trimmed, empty ones dropped. */
export function categorySegments(path: string): string[] {
  return path
    .split("/")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** The column values of one item: class, its category's levels, its import facets. */
export function itemColumnValues(item: Pick<RoundItem, "class" | "category" | "facets">): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (item.class.trim() !== "") out.push([CLASS_COLUMN, item.class.trim()]);
  const segs = categorySegments(item.category).slice(0, COLUMN_LIMITS.categoryLevelsMax);
  for (let l = 0; l < segs.length; l++) out.push([categoryLevelColumn(l), segs.slice(0, l + 1).join(" / ")]);
  for (const [name, v] of Object.entries(item.facets ?? {})) {
    if (!isReservedColumn(name) && v.trim() !== "") out.push([name, v.trim()]);
  }
  return out;
}

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
export const isDecimal = (v: string) => NUMBER.test(v);

const widthFor = (values: number): ColumnWidth => (values < 2 ** 8 ? 1 : values < 2 ** 16 ? 2 : 4);
const codesOf = (width: ColumnWidth, n: number): Codes => (width === 1 ? new Uint8Array(n) : width === 2 ? new Uint16Array(n) : new Uint32Array(n));

/** Builds every column in one pass over the items in ordinal order (streamed: per field, a growing code array and a dictionary). */
export function buildColumns(items: Iterable<Pick<RoundItem, "class" | "category" | "facets">>, chunkItems: number = COLUMN_LIMITS.chunkItems): Columns {
  const fields = new Map<string, { dict: Map<string, number>; codes: Uint32Array; omitted: boolean }>();
  let n = 0;
  for (const item of items) {
    for (const [name, value] of itemColumnValues(item)) {
      let f = fields.get(name);
      if (!f) {
        f = { dict: new Map(), codes: new Uint32Array(Math.max(1024, n * 2)), omitted: false };
        fields.set(name, f);
      }
      if (f.omitted) continue;
      let code = f.dict.get(value);
      if (code === undefined) {
        if (f.dict.size >= COLUMN_LIMITS.valuesPerColumnMax) {
          f.omitted = true;
          f.dict.clear();
          continue;
        }
        code = f.dict.size + 1;
        f.dict.set(value, code);
      }
      if (n >= f.codes.length) {
        const grown = new Uint32Array(Math.max(n + 1, f.codes.length * 2));
        grown.set(f.codes);
        f.codes = grown;
      }
      f.codes[n] = code;
    }
    n++;
  }
  const columns: ColumnMeta[] = [];
  const codes = new Map<string, Codes>();
  const omitted: string[] = [];
  for (const name of [...fields.keys()].sort()) {
    const f = fields.get(name) as NonNullable<ReturnType<typeof fields.get>>;
    if (f.omitted) {
      omitted.push(name);
      continue;
    }
    const raw = [...f.dict.keys()];
    const numeric = raw.every(isDecimal);
    const sorted = [...raw].sort(numeric ? (a, b) => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0) : (a, b) => (a < b ? -1 : a > b ? 1 : 0));
    // First-seen code → sorted code, so the dictionary's order is the data's, not the input's.
    const remap = new Uint32Array(raw.length + 1);
    sorted.forEach((v, j) => {
      remap[f.dict.get(v) as number] = j + 1;
    });
    const width = widthFor(sorted.length + 1);
    const out = codesOf(width, n);
    for (let o = 0; o < n && o < f.codes.length; o++) out[o] = remap[f.codes[o] as number] as number;
    columns.push({ name, values: sorted, width, numeric });
    codes.set(name, out);
  }
  return { meta: { format: COLUMNS_FORMAT, version: COLUMNS_VERSION, itemCount: n, chunkItems, columns, omitted }, codes };
}

export function parseColumnsMeta(text: string): ColumnsMeta {
  const m = JSON.parse(text) as Partial<ColumnsMeta>;
  if (m.format !== COLUMNS_FORMAT) throw new Error(`not a ${COLUMNS_FORMAT} value`);
  if (m.version !== COLUMNS_VERSION) throw new Error(`unsupported ${COLUMNS_FORMAT} version ${String(m.version)} (this build reads ${COLUMNS_VERSION})`);
  if (!Number.isInteger(m.itemCount) || !Number.isInteger(m.chunkItems) || (m.chunkItems as number) < 1 || !Array.isArray(m.columns)) {
    throw new Error(`malformed ${COLUMNS_FORMAT} value`);
  }
  return m as ColumnsMeta;
}

export const chunkCount = (meta: Pick<ColumnsMeta, "itemCount" | "chunkItems">) => Math.ceil(meta.itemCount / meta.chunkItems);

/** One chunk of a column's codes as stored (little-endian bytes, base64: KV's bulk reads return text). */
export function encodeChunk(codes: Codes, chunk: number, chunkItems: number): string {
  const part = codes.subarray(chunk * chunkItems, Math.min(codes.length, (chunk + 1) * chunkItems));
  return toBase64(new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
}

/** A column's codes joined from its chunks (in order); a chunk of the wrong size is refused. */
export function joinChunks(meta: ColumnsMeta, column: ColumnMeta, chunks: readonly string[]): Codes {
  const out = codesOf(column.width, meta.itemCount);
  const bytes = new Uint8Array(out.buffer);
  chunks.forEach((text, c) => {
    const b = fromBase64(text);
    const expected = (Math.min(meta.itemCount, (c + 1) * meta.chunkItems) - c * meta.chunkItems) * column.width;
    if (b.length !== expected) throw new Error(`column ${column.name} chunk ${c}: ${b.length} bytes, ${expected} expected`);
    bytes.set(b, c * meta.chunkItems * column.width);
  });
  return out;
}

/** A RoundItem's `facets` field from a product's (absent when it has none, so rounds without import facets keep their bytes and contentHash). */
export function facetsField(facets: Readonly<Record<string, string>> | undefined): { facets?: Readonly<Record<string, string>> } {
  return facets && Object.keys(facets).length > 0 ? { facets } : {};
}
