/**
 * Search events, written after the response and never in its way.
 *
 * Events are buffered per isolate and flushed as one D1 statement per batch
 * (rows travel as one JSON parameter through json_each, inside D1's
 * 100-bound-parameter limit) either when the buffer is full or a few ms
 * after its first event, in the waitUntil of the request that opened the
 * batch. Each event also goes to Workers Analytics Engine when the
 * EVENTS_AE binding exists. A failed write is logged and dropped: losing an
 * event never fails a search.
 */
import type { Team } from "./interleave.js";

export const EVENT_LIMITS = {
  batchEvents: 50,
  /** Default wait before a batch is written (EVENTS_FLUSH_MS overrides; 0 writes each search at once). */
  flushAfterMsDefault: 25,
  /** Feedback is accepted for searches this recent. */
  feedbackWindowMs: 24 * 3600 * 1000,
} as const;

export interface SearchEvent {
  readonly requestId: string;
  readonly at: number;
  readonly experimentId: string | null;
  readonly arm: string | null;
  readonly round: number;
  readonly otherRound: number | null;
  /** The user key hashed (user-hash.ts), never the key itself. */
  readonly userKey: string;
  /** The query normalised as keywords are (core/normalize.ts): what learning from clicks groups searches by. */
  readonly query: string;
  /** Under an experiment: the client's network prefix, hashed with the experiment's salt (network.ts); null otherwise. */
  readonly net: string | null;
  readonly latencyMs: number;
  readonly total: number;
  readonly zeroResult: boolean;
  readonly error: boolean;
  readonly keywordSource: string;
  readonly fallback: boolean;
  /** [itemId, position (1-based), team?, 1 when only that team's round ranked the item (interleave.ts: a click on it is credited)] */
  readonly shown: ReadonlyArray<readonly [string, number, Team?, 1?]>;
}

export interface EventBindings {
  readonly EVENTS?: D1Database;
  readonly EVENTS_AE?: AnalyticsEngineDataset;
  readonly EVENTS_FLUSH_MS?: string;
}

let buffer: SearchEvent[] = [];
let flushing: Promise<void> | null = null;

const INSERT_SEARCHES = `INSERT OR IGNORE INTO searches
  (request_id, at, experiment_id, arm, round, other_round, user_key, query, net, latency_ms, total, zero_result, error, keyword_source, fallback, shown)
  SELECT value ->> '$.requestId', value ->> '$.at', value ->> '$.experimentId', value ->> '$.arm', value ->> '$.round', value ->> '$.otherRound',
         value ->> '$.userKey', value ->> '$.query', value ->> '$.net', value ->> '$.latencyMs', value ->> '$.total', value ->> '$.zeroResult', value ->> '$.error',
         value ->> '$.keywordSource', value ->> '$.fallback', value -> '$.shown'
  FROM json_each(?1)`;

async function flush(db: D1Database): Promise<void> {
  const batch = buffer;
  buffer = [];
  flushing = null;
  if (batch.length === 0) return;
  const rows = batch.map((e) => ({ ...e, zeroResult: e.zeroResult ? 1 : 0, error: e.error ? 1 : 0, fallback: e.fallback ? 1 : 0 }));
  try {
    await db.prepare(INSERT_SEARCHES).bind(JSON.stringify(rows)).run();
  } catch (e) {
    console.warn(`search events lost (${batch.length}):`, (e as Error).message);
  }
}

/** Records a search event; the write happens in `waitUntil`, after the response. */
export function recordSearch(env: EventBindings, event: SearchEvent, waitUntil: (p: Promise<unknown>) => void): void {
  try {
    env.EVENTS_AE?.writeDataPoint({
      indexes: [event.experimentId ?? "none"],
      blobs: [event.requestId, event.arm ?? "", event.keywordSource, event.userKey, event.net ?? ""],
      doubles: [event.round, event.latencyMs, event.total, event.zeroResult ? 1 : 0, event.error ? 1 : 0, event.fallback ? 1 : 0],
    });
  } catch (e) {
    console.warn("Analytics Engine write failed:", (e as Error).message);
  }
  const db = env.EVENTS;
  if (!db) return;
  buffer.push(event);
  const wait = env.EVENTS_FLUSH_MS === undefined || env.EVENTS_FLUSH_MS === "" ? EVENT_LIMITS.flushAfterMsDefault : Number(env.EVENTS_FLUSH_MS);
  if (buffer.length >= EVENT_LIMITS.batchEvents || !(wait > 0)) {
    waitUntil(flush(db));
  } else if (!flushing) {
    flushing = new Promise<void>((resolve) => setTimeout(resolve, wait)).then(() => flush(db));
    waitUntil(flushing);
  }
}

export interface ShownSearch {
  readonly at: number;
  readonly experimentId: string | null;
  readonly arm: string | null;
  readonly shown: ReadonlyArray<readonly [string, number, Team?, 1?]>;
}

/** The recorded search a feedback event refers to, or null. */
export async function findSearch(db: D1Database, requestId: string): Promise<ShownSearch | null> {
  const row = await db
    .prepare("SELECT at, experiment_id, arm, shown FROM searches WHERE request_id = ?")
    .bind(requestId)
    .first<{ at: number; experiment_id: string | null; arm: string | null; shown: string }>();
  return row ? { at: row.at, experimentId: row.experiment_id, arm: row.arm, shown: JSON.parse(row.shown) } : null;
}

/** Records one feedback event; false when it was a duplicate (same request, item and type). */
export async function recordFeedback(
  db: D1Database,
  f: { requestId: string; itemId: string; type: string; at: number; experimentId: string | null; arm: string | null; team: Team | null },
): Promise<boolean> {
  const r = await db
    .prepare("INSERT OR IGNORE INTO feedback (request_id, item_id, type, at, experiment_id, arm, team) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .bind(f.requestId, f.itemId, f.type, f.at, f.experimentId, f.arm, f.team)
    .run();
  return r.meta.changes === 1;
}
