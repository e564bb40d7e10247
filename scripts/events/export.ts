/**
 * The export itself: searches in keyset pages by (at, request_id), each
 * followed in the file by its feedback (one query per page), appended to
 * --out page by page; resumable from what the file already holds.
 *
 * Resuming: the file is scanned once; everything from the last search line
 * on (that search's feedback may be incomplete, the last line may be cut)
 * is cut off, and paging restarts after the search line before it. So a
 * killed export, or one re-run later to pick up newer searches, continues
 * where the complete part of the file ends.
 */
import { closeSync, existsSync, ftruncateSync, openSync, writeSync } from "node:fs";
import type { FeedbackLine, SearchLine } from "../../training/clicks/events.js";
import { readLines } from "../../training/jsonl.js";
import type { EventsDb } from "./source.js";

export const EXPORT_LIMITS = {
  /** Searches a page (their feedback comes with them): one bound JSON parameter of ≤ 1,000 ids. */
  pageSearches: 1000,
} as const;

export type ExportDrop = "search-without-query-text" | "search-with-unreadable-shown" | "feedback-on-an-item-not-shown";

export interface ExportCounts {
  /** Lines the file held before this run, after cutting the last (possibly incomplete) search group. */
  kept: number;
  searches: number;
  feedback: number;
  dropped: Record<ExportDrop, number>;
  resumedAfter: { at: number; requestId: string } | null;
}

interface SearchRow {
  request_id: string;
  at: number;
  user_key: string;
  query: string | null;
  round: number;
  other_round: number | null;
  experiment_id: string | null;
  arm: string | null;
  shown: string;
}

interface FeedbackRow {
  request_id: string;
  item_id: string;
  type: FeedbackLine["kind"];
  at: number;
}

const SEARCH_PAGE = `SELECT request_id, at, user_key, query, round, other_round, experiment_id, arm, shown FROM searches
  WHERE at >= ?1 AND (at > ?2 OR (at = ?2 AND request_id > ?3)) ORDER BY at, request_id LIMIT ?4`;
const FEEDBACK_OF = `SELECT request_id, item_id, type, at FROM feedback WHERE request_id IN (SELECT value FROM json_each(?1))
  ORDER BY request_id, at, item_id, type`;

/** Where to continue: cuts the file after its last complete search group's predecessor and returns that search's key. */
export function resumePoint(out: string): { kept: number; after: { at: number; requestId: string } | null } {
  if (!existsSync(out)) return { kept: 0, after: null };
  let offset = 0;
  let lines = 0;
  let lastStart = 0;
  let linesBeforeLast = 0;
  let last: { at: number; requestId: string } | null = null;
  let previous: { at: number; requestId: string } | null = null;
  for (const line of readLines(out)) {
    if (line.startsWith('{"type":"search"')) {
      try {
        const s = JSON.parse(line) as SearchLine;
        previous = last;
        last = { at: s.at, requestId: s.requestId };
        lastStart = offset;
        linesBeforeLast = lines;
      } catch {
        // a cut last line: the scan ends here anyway
      }
    }
    offset += Buffer.byteLength(line) + 1;
    lines++;
  }
  const fd = openSync(out, "r+");
  try {
    ftruncateSync(fd, last ? lastStart : 0);
  } finally {
    closeSync(fd);
  }
  return { kept: last ? linesBeforeLast : 0, after: last ? previous : null };
}

function searchLine(r: SearchRow, counts: ExportCounts): { line: string; shown: Set<string>; userHash: string } | null {
  if (r.query === null) {
    counts.dropped["search-without-query-text"]++;
    return null;
  }
  let shown: Array<[string, number, string?]>;
  try {
    shown = JSON.parse(r.shown);
    if (!Array.isArray(shown)) throw new Error("not a list");
  } catch {
    counts.dropped["search-with-unreadable-shown"]++;
    return null;
  }
  const line: SearchLine = {
    type: "search",
    requestId: r.request_id,
    at: r.at,
    userHash: r.user_key,
    query: r.query,
    round: r.round,
    ...(r.other_round !== null ? { otherRound: r.other_round } : {}),
    ...(r.experiment_id !== null ? { experimentId: r.experiment_id } : {}),
    ...(r.arm !== null ? { arm: r.arm } : {}),
    shown: shown.map(([itemId, position, team]) => (team ? { itemId, position, team } : { itemId, position })),
  };
  return { line: JSON.stringify(line), shown: new Set(shown.map((s) => s[0])), userHash: r.user_key };
}

export async function exportEvents(
  db: EventsDb,
  out: string,
  since: number,
  onPage: (counts: ExportCounts) => void = () => {},
  pageSearches: number = EXPORT_LIMITS.pageSearches,
): Promise<ExportCounts> {
  const resume = resumePoint(out);
  const counts: ExportCounts = {
    kept: resume.kept,
    searches: 0,
    feedback: 0,
    dropped: { "search-without-query-text": 0, "search-with-unreadable-shown": 0, "feedback-on-an-item-not-shown": 0 },
    resumedAfter: resume.after,
  };
  let cursor = resume.after ?? { at: -1, requestId: "" };
  const fd = openSync(out, "a");
  try {
    for (;;) {
      const rows = await db.all<SearchRow>(SEARCH_PAGE, [since, cursor.at, cursor.requestId, pageSearches]);
      if (rows.length === 0) break;
      const fb = await db.all<FeedbackRow>(FEEDBACK_OF, [JSON.stringify(rows.map((r) => r.request_id))]);
      const byRequest = new Map<string, FeedbackRow[]>();
      for (const f of fb) {
        const l = byRequest.get(f.request_id);
        if (l) l.push(f);
        else byRequest.set(f.request_id, [f]);
      }
      const text: string[] = [];
      for (const r of rows) {
        const s = searchLine(r, counts);
        if (!s) continue;
        text.push(s.line);
        counts.searches++;
        for (const f of byRequest.get(r.request_id) ?? []) {
          if (!s.shown.has(f.item_id)) {
            counts.dropped["feedback-on-an-item-not-shown"]++;
            continue;
          }
          const line: FeedbackLine = { type: "feedback", requestId: f.request_id, itemId: f.item_id, kind: f.type, at: f.at, userHash: s.userHash };
          text.push(JSON.stringify(line));
          counts.feedback++;
        }
      }
      if (text.length > 0) writeSync(fd, `${text.join("\n")}\n`);
      const lastRow = rows[rows.length - 1] as SearchRow;
      cursor = { at: lastRow.at, requestId: lastRow.request_id };
      onPage(counts);
      if (rows.length < pageSearches) break;
    }
  } finally {
    closeSync(fd);
  }
  return counts;
}
