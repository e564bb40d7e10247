/**
 * SQL text for publishing: literals and multi-row INSERTs. Rows are written
 * as literals, not bound parameters: a few hundred rows a statement is ~100×
 * faster than one, and literals sidestep remote D1's 100-bound-parameter
 * limit. The one quoting helper of the project (publish, labels, the wrangler
 * target's parameters).
 */
import { PUBLISH_LIMITS } from "./limits.js";

/** A SQL string literal. NUL cannot live in a SQLite text literal, so it is dropped. */
export const sqlText = (s: string) => `'${s.split(String.fromCharCode(0)).join("").replace(/'/g, "''")}'`;

/** Packs value tuples into INSERT statements within the row and byte limits. */
export class InsertPacker {
  private rows: string[] = [];
  private bytes: number;
  readonly done: string[] = [];

  constructor(private readonly head: string) {
    this.bytes = head.length;
  }

  add(tuple: string): void {
    if (tuple.length + this.head.length + 2 > PUBLISH_LIMITS.statementBytes)
      throw new RangeError(`one row is over ${PUBLISH_LIMITS.statementBytes} bytes of SQL`);
    if (this.rows.length >= PUBLISH_LIMITS.rowsPerStatement || this.bytes + tuple.length + 1 > PUBLISH_LIMITS.statementBytes) this.flush();
    this.rows.push(tuple);
    this.bytes += tuple.length + 1;
  }

  flush(): void {
    if (this.rows.length > 0) this.done.push(`${this.head} ${this.rows.join(",")};`);
    this.rows = [];
    this.bytes = this.head.length;
  }
}

/** All of a tuple list as statements (tests and small callers). */
export function packInserts(head: string, tuples: Iterable<string>): string[] {
  const p = new InsertPacker(head);
  for (const t of tuples) p.add(t);
  p.flush();
  return p.done;
}
