/**
 * The import's input, streamed row by row with each row's first line number:
 * JSON Lines (split here in bounded chunks; a line over the row limit is
 * refused, never buffered without bound) and CSV/TSV with a header and
 * RFC 4180 quoting (csv-parse; quotes inside an unquoted field are kept as
 * text, as WANDS's TSV has them). A row that cannot be a record is reported
 * as a bad row; a file that cannot be read on is an ImportError.
 */
import { createReadStream, existsSync } from "node:fs";
import { parse } from "csv-parse";
import type { SkipReason } from "../data/catalog.js";
import { IMPORT_LIMITS } from "./mapping.js";

export type InputRow =
  | { readonly line: number; readonly record: Record<string, unknown> }
  | { readonly line: number; readonly bad: { readonly reason: SkipReason; readonly message: string } };

/** Input that cannot be read on (no file, no header, an unclosed quote): one line, the import stops. */
export class ImportError extends Error {}

const CHUNK_BYTES = 1 << 20;

/** Lines of a file with their numbers; "\r\n" ends a line too, and a leading byte-order mark is dropped. */
async function* lines(path: string): AsyncGenerator<{ line: number; text: string }> {
  let carry: Buffer[] = [];
  let carried = 0;
  let line = 0;
  const decode = (b: Buffer) => {
    const t = b.toString("utf8");
    const u = t.endsWith("\r") ? t.slice(0, -1) : t;
    return line === 1 && u.charCodeAt(0) === 0xfeff ? u.slice(1) : u;
  };
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, at);
      line++;
      yield { line, text: decode(carry.length > 0 ? Buffer.concat([...carry, piece]) : piece) };
      carry = [];
      carried = 0;
      start = at + 1;
    }
    if (start < chunk.length) {
      carry.push(chunk.subarray(start));
      carried += chunk.length - start;
      if (carried > IMPORT_LIMITS.maxRowBytes) throw new ImportError(`${path}:${line + 1}: a line longer than ${IMPORT_LIMITS.maxRowBytes} bytes`);
    }
  }
  if (carry.length > 0) {
    line++;
    yield { line, text: decode(Buffer.concat(carry)) };
  }
}

export function requireFile(path: string, what: string): void {
  if (!existsSync(path)) throw new ImportError(`${what} ${path}: file not found`);
}

export async function* readJsonlRows(path: string): AsyncGenerator<InputRow> {
  requireFile(path, "--products");
  for await (const { line, text } of lines(path)) {
    if (text.trim() === "") continue;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      yield { line, bad: { reason: "invalid-json", message: `not valid JSON (${(e as Error).message.split("\n")[0]})` } };
      continue;
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      yield { line, bad: { reason: "not-an-object", message: `not a JSON object (${Array.isArray(v) ? "a list" : v === null ? "null" : typeof v})` } };
      continue;
    }
    yield { line, record: v as Record<string, unknown> };
  }
}

/** Rows of a CSV or TSV file as header → value records; the header must name every field in `required`. */
export async function* readDelimitedRows(path: string, delimiter: "," | "\t", required: readonly string[]): AsyncGenerator<InputRow> {
  requireFile(path, "--products");
  const parser = createReadStream(path).pipe(
    parse({
      delimiter,
      bom: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      max_record_size: IMPORT_LIMITS.maxRowBytes,
    }),
  );
  let header: string[] | null = null;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      // info.lines is the line a record ends on; a quoted field's line breaks move its start back.
      const line = info.lines - record.reduce((n, f) => n + countNewlines(f), 0);
      if (header === null) {
        header = record.map((h) => h.trim());
        const missing = required.filter((f) => !header?.includes(f));
        if (missing.length > 0) {
          throw new ImportError(
            `${path}:${line}: the header has no column ${missing.map((f) => JSON.stringify(f)).join(", ")} (columns: ${header.join(", ")})`,
          );
        }
        const twice = required.find((f) => header?.indexOf(f) !== header?.lastIndexOf(f));
        if (twice !== undefined) throw new ImportError(`${path}:${line}: the header names column ${JSON.stringify(twice)} twice`);
        continue;
      }
      if (record.length !== header.length) {
        yield { line, bad: { reason: "malformed-row", message: `${record.length} fields where the header has ${header.length}` } };
        continue;
      }
      const row: Record<string, string> = {};
      for (let j = 0; j < header.length; j++) row[header[j] as string] = record[j] as string;
      yield { line, record: row };
    }
  } catch (e) {
    if (e instanceof ImportError) throw e;
    const at = (e as { lines?: number }).lines;
    throw new ImportError(`${path}${at ? `:${at}` : ""}: ${(e as Error).message.split("\n")[0]}`);
  } finally {
    parser.destroy();
  }
  if (header === null) throw new ImportError(`${path}: empty file (a header line is expected)`);
}

function countNewlines(s: string): number {
  let n = 0;
  for (let at = s.indexOf("\n"); at >= 0; at = s.indexOf("\n", at + 1)) n++;
  return n;
}
