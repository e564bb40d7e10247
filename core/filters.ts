/**
 * Filters and facet counts over a round's facet columns (core/columns.ts).
 * Pure, so the worker, the trainer and the evaluator narrow I_ret(q) alike:
 *
 *   I_ret(q | F) = { i ∈ I_ret(q) : ∀ field f ∈ F, value_f(i) ∈ allowed_f }
 *
 * Fields combine with AND; the values listed for one field with OR. A value
 * matches when it is equal after keyword normalisation (core/normalize.ts:
 * case, punctuation and spacing do not count); a category value is a path
 * prefix cut at level boundaries ("Furniture / Living Room Furniture" matches
 * every item below it, "Furniture / Living" none). A numeric field also takes
 * a range `MIN..MAX` (either end open, both inclusive). A value the round does
 * not hold matches nothing; a field it has no column for is an error.
 */
import {
  CATEGORY_FIELD,
  CLASS_COLUMN,
  COLUMN_LIMITS,
  type Codes,
  type ColumnMeta,
  type ColumnsMeta,
  categoryLevelColumn,
  categorySegments,
  isDecimal,
} from "./columns.js";
import { normalizeKeyword } from "./normalize.js";

/** A filter as asked: the request parameter that carries it (for the error), the field, its raw text. */
export interface FilterRequest {
  readonly parameter: string;
  readonly field: string;
  readonly raw: string;
}

export class FilterError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

/** Per field, the (column, allowed codes) pairs it ORs; fields AND. */
export interface CompiledFilter {
  readonly columns: readonly string[];
  readonly fields: ReadonlyArray<ReadonlyArray<{ readonly column: string; readonly allowed: Uint8Array }>>;
}

export const FILTER_LIMITS = { valuesPerFieldMax: 100, rawCharsMax: 1024 } as const;

const RANGE = /^\s*(-?(?:\d+(?:\.\d+)?|\.\d+))?\s*\.\.\s*(-?(?:\d+(?:\.\d+)?|\.\d+))?\s*$/;

/** `MIN..MAX` with either end open, or null when the text is not a range. */
export function parseRange(raw: string): { min: number; max: number } | null {
  const m = RANGE.exec(raw);
  if (!m || (m[1] === undefined && m[2] === undefined)) return null;
  return { min: m[1] === undefined ? Number.NEGATIVE_INFINITY : Number(m[1]), max: m[2] === undefined ? Number.POSITIVE_INFINITY : Number(m[2]) };
}

/** A comma-separated list; `\,` is a comma inside a value and `\\` a backslash. Empty entries are dropped. */
export function splitValues(raw: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let j = 0; j < raw.length; j++) {
    const ch = raw[j] as string;
    if (ch === "\\" && j + 1 < raw.length && (raw[j + 1] === "," || raw[j + 1] === "\\")) cur += raw[++j];
    else if (ch === ",") {
      out.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  out.push(cur.trim());
  return out.filter((v) => v !== "");
}

/** The normalised spelling a filter value and a column value are compared in. */
export function valueKey(column: string, value: string): string {
  if (column.startsWith(`${CATEGORY_FIELD}.`)) return categorySegments(value).map(normalizeKeyword).join(" / ");
  return normalizeKeyword(value);
}

const lookups = new WeakMap<ColumnMeta, Map<string, number[]>>();
/** Normalised value → its codes (several raw spellings may normalise alike). */
function lookup(column: ColumnMeta): Map<string, number[]> {
  let m = lookups.get(column);
  if (!m) {
    m = new Map();
    column.values.forEach((v, j) => {
      const k = valueKey(column.name, v);
      const codes = m?.get(k);
      if (codes) codes.push(j + 1);
      else m?.set(k, [j + 1]);
    });
    lookups.set(column, m);
  }
  return m;
}

const columnOf = (meta: ColumnsMeta, name: string) => meta.columns.find((c) => c.name === name);

function allowedByValues(column: ColumnMeta | undefined, values: readonly string[], parameter: string): Uint8Array {
  if (!column) return new Uint8Array(1);
  const allowed = new Uint8Array(column.values.length + 1);
  for (const v of values) {
    if (column.numeric) {
      if (!isDecimal(v))
        throw new FilterError(parameter, `${parameter}: ${JSON.stringify(v)} is not a number (the field is numeric: a number, a list, or a range MIN..MAX)`);
      column.values.forEach((x, j) => {
        if (Number(x) === Number(v)) allowed[j + 1] = 1;
      });
    } else for (const code of lookup(column).get(valueKey(column.name, v)) ?? []) allowed[code] = 1;
  }
  return allowed;
}

/** Compiles the requests against a round's columns; throws FilterError naming the parameter at fault. */
export function compileFilters(meta: ColumnsMeta, requests: readonly FilterRequest[]): CompiledFilter {
  const fields: Array<Array<{ column: string; allowed: Uint8Array }>> = [];
  for (const r of requests) {
    if (r.raw.length > FILTER_LIMITS.rawCharsMax) throw new FilterError(r.parameter, `${r.parameter} is over ${FILTER_LIMITS.rawCharsMax} characters`);
    const range = parseRange(r.raw);
    if (range) {
      const column = columnOf(meta, r.field);
      if (r.field === CLASS_COLUMN || r.field === CATEGORY_FIELD || (column && !column.numeric)) {
        throw new FilterError(r.parameter, `${r.parameter}: ${r.field} is not a numeric field, so it takes values, not a range`);
      }
      if (!column) throw new FilterError(r.parameter, unknownField(meta, r));
      if (range.min > range.max) throw new FilterError(r.parameter, `${r.parameter}: the range ${r.raw} is empty (MIN above MAX)`);
      const allowed = new Uint8Array(column.values.length + 1);
      column.values.forEach((x, j) => {
        const n = Number(x);
        if (n >= range.min && n <= range.max) allowed[j + 1] = 1;
      });
      fields.push([{ column: column.name, allowed }]);
      continue;
    }
    if (r.raw.includes("..") && /^[\s\d.-]*$/.test(r.raw))
      throw new FilterError(r.parameter, `${r.parameter}: ${JSON.stringify(r.raw)} is not a range MIN..MAX`);
    const values = splitValues(r.raw);
    if (values.length === 0) throw new FilterError(r.parameter, `${r.parameter} names no value`);
    if (values.length > FILTER_LIMITS.valuesPerFieldMax)
      throw new FilterError(r.parameter, `${r.parameter} lists over ${FILTER_LIMITS.valuesPerFieldMax} values`);
    if (r.field === CATEGORY_FIELD) {
      // Each path filters on the level its depth names; paths of different depths OR across levels.
      const byLevel = new Map<number, string[]>();
      for (const v of values) {
        const depth = categorySegments(v).length;
        if (depth === 0) throw new FilterError(r.parameter, `${r.parameter}: ${JSON.stringify(v)} names no category`);
        byLevel.set(depth - 1, [...(byLevel.get(depth - 1) ?? []), v]);
      }
      fields.push(
        [...byLevel].map(([level, vs]) => ({
          column: categoryLevelColumn(level),
          allowed: allowedByValues(columnOf(meta, categoryLevelColumn(level)), vs, r.parameter),
        })),
      );
      continue;
    }
    const column = columnOf(meta, r.field);
    if (!column && r.field !== CLASS_COLUMN) throw new FilterError(r.parameter, unknownField(meta, r));
    fields.push([{ column: r.field, allowed: allowedByValues(column, values, r.parameter) }]);
  }
  return { columns: [...new Set(fields.flat().map((f) => f.column))], fields };
}

function unknownField(meta: ColumnsMeta, r: FilterRequest): string {
  const names = meta.columns.map((c) => c.name).filter((n) => n !== CLASS_COLUMN && !n.startsWith(`${CATEGORY_FIELD}.`));
  return `${r.parameter}: the round has no field ${JSON.stringify(r.field)} (${names.length > 0 ? `its fields: class, category, ${names.join(", ")}` : "its fields: class, category"})`;
}

/** The filter as a predicate over item ordinals, given the codes of its columns (a column absent holds no value). */
export function filterPredicate(filter: CompiledFilter, codes: ReadonlyMap<string, Codes>): (ordinal: number) => boolean {
  const NONE = new Uint8Array(0);
  const one = (a: { readonly column: string; readonly allowed: Uint8Array }) => {
    // A column absent holds no value (code 0), which no filter allows: an empty code array reads undefined → 0.
    const c: Codes = codes.get(a.column) ?? NONE;
    const allowed = a.allowed;
    return (o: number) => allowed[c[o] ?? 0] === 1;
  };
  // The common shapes as straight-line closures (a filter runs once per item of I_ret(q) and of the tail).
  const fields = filter.fields.map((alts) => {
    if (alts.length === 1) return one(alts[0] as (typeof alts)[number]);
    const tests = alts.map(one);
    return (o: number) => tests.some((t) => t(o));
  });
  if (fields.length === 1) return fields[0] as (o: number) => boolean;
  if (fields.length === 2) {
    const [f, g] = fields as [(o: number) => boolean, (o: number) => boolean];
    return (o) => f(o) && g(o);
  }
  return (o) => fields.every((t) => t(o));
}

/** The ordinals of a sorted list that pass, still sorted. */
export function filterOrdinals(items: Uint32Array, keep: (ordinal: number) => boolean): Uint32Array {
  const out = new Uint32Array(items.length);
  let n = 0;
  for (let j = 0; j < items.length; j++) if (keep(items[j] as number)) out[n++] = items[j] as number;
  return out.subarray(0, n);
}

export interface FacetValue {
  readonly value: string;
  readonly count: number;
}

/** The column a facet name reads: `category` is the level below the one filtered on (one category path), else the top level. */
export function facetColumn(meta: ColumnsMeta, name: string, requests: readonly FilterRequest[]): string {
  if (name === CLASS_COLUMN || name.startsWith(`${CATEGORY_FIELD}.lvl`)) return name;
  if (name === CATEGORY_FIELD) {
    const cat = requests.filter((r) => r.field === CATEGORY_FIELD).flatMap((r) => splitValues(r.raw));
    return categoryLevelColumn(cat.length === 1 ? categorySegments(cat[0] as string).length : 0);
  }
  if (!columnOf(meta, name)) throw new FilterError("facets", `facets: the round has no field ${JSON.stringify(name)}`);
  return name;
}

/**
 * A facet's values over a set of ordinals, by count descending, ties by value
 * (code-unit order), the top `top`. Counting reads one code per item and
 * scores nothing.
 */
export function countFacet(
  meta: ColumnsMeta,
  column: string,
  codes: Codes | undefined,
  items: Uint32Array,
  top: number = COLUMN_LIMITS.facetTop,
): FacetValue[] {
  const col = columnOf(meta, column);
  if (!col || !codes) return [];
  const counts = new Uint32Array(col.values.length + 1);
  for (let j = 0; j < items.length; j++) {
    const c = codes[items[j] as number] ?? 0;
    counts[c] = (counts[c] as number) + 1;
  }
  const out: FacetValue[] = [];
  for (let c = 1; c < counts.length; c++) if ((counts[c] as number) > 0) out.push({ value: col.values[c - 1] as string, count: counts[c] as number });
  out.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return out.slice(0, top);
}
