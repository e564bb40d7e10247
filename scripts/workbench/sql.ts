/** SQL statements for the workbench's local loads, kept under D1's statement size. */

/** D1 refuses statements over 100 KB; leave room for the prefix. */
export const WORKBENCH_SQL_LIMITS = { maxStatementBytes: 90_000, statementsPerBatch: 25 } as const;

/** `prefix v1,v2,… suffix`, as many statements as the values need to stay under the byte limit. */
export function packedInserts(prefix: string, values: readonly string[], suffix = ""): string[] {
  const out: string[] = [];
  let part: string[] = [];
  let bytes = 0;
  for (const v of values) {
    const b = Buffer.byteLength(v) + 1;
    if (part.length > 0 && bytes + b > WORKBENCH_SQL_LIMITS.maxStatementBytes) {
      out.push(`${prefix}${part.join(",")}${suffix}`);
      part = [];
      bytes = 0;
    }
    part.push(v);
    bytes += b;
  }
  if (part.length > 0) out.push(`${prefix}${part.join(",")}${suffix}`);
  return out;
}

/** Runs statements in batches (each batch one D1 transaction). */
export async function executeAll(db: { execute(statements: readonly string[]): Promise<void> }, statements: readonly string[]): Promise<void> {
  for (let j = 0; j < statements.length; j += WORKBENCH_SQL_LIMITS.statementsPerBatch)
    await db.execute(statements.slice(j, j + WORKBENCH_SQL_LIMITS.statementsPerBatch));
}
