/** The publisher's budgets: D1 statement and batch sizes, KV's value limit, chain length. */
export const PUBLISH_LIMITS = {
  statementBytes: 90_000,
  rowsPerStatement: 400,
  /** Statements sent in one batch (one D1 batch call, one resume step). */
  statementsPerBatch: 50,
  /** KV's value limit is 25 MiB. */
  kvValueBytes: 25 * 2 ** 20,
  /** A round reads through at most this many rounds (itself and its bases); a longer chain publishes in full. */
  maxChain: 8,
} as const;
