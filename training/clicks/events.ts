/**
 * The event file `npm run events:export` writes and `--supervision clicks`
 * reads: JSON Lines, one event a line, each search followed by its feedback
 * (export/README "Events"). `at` is epoch milliseconds, as the events
 * database stores it.
 */

export const FEEDBACK_KINDS = ["click", "add_to_cart", "purchase"] as const;
export type FeedbackKind = (typeof FEEDBACK_KINDS)[number];

export interface Shown {
  readonly itemId: string;
  /** 1-based rank on the page the user saw. */
  readonly position: number;
  readonly team?: string;
}

export interface SearchLine {
  readonly type: "search";
  readonly requestId: string;
  readonly at: number;
  readonly userHash: string;
  /** The query as core's normalizeKeyword writes it. */
  readonly query: string;
  readonly round: number;
  readonly otherRound?: number;
  readonly experimentId?: string;
  readonly arm?: string;
  readonly shown: readonly Shown[];
}

export interface FeedbackLine {
  readonly type: "feedback";
  readonly requestId: string;
  readonly itemId: string;
  readonly kind: FeedbackKind;
  readonly at: number;
  readonly userHash: string;
}

export type EventLine = SearchLine | FeedbackLine;

const isStr = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** One line of an event file, or the reason it is not one (the caller counts and skips it). */
export function parseEventLine(line: string): EventLine | { readonly bad: string } {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(line);
  } catch {
    return { bad: "not JSON" };
  }
  if (v === null || typeof v !== "object") return { bad: "not an object" };
  if (!isStr(v.requestId) || !isInt(v.at) || !isStr(v.userHash)) return { bad: "no requestId, at or userHash" };
  if (v.type === "search") {
    if (typeof v.query !== "string" || !isInt(v.round) || !Array.isArray(v.shown)) return { bad: "a search without query, round or shown" };
    for (const s of v.shown as unknown[]) {
      const o = s as Record<string, unknown>;
      if (o === null || typeof o !== "object" || !isStr(o.itemId) || !isInt(o.position) || (o.position as number) < 1)
        return { bad: "a shown entry without itemId or position" };
    }
    return v as unknown as SearchLine;
  }
  if (v.type === "feedback") {
    if (!isStr(v.itemId) || !(FEEDBACK_KINDS as readonly unknown[]).includes(v.kind)) return { bad: "feedback without itemId or kind" };
    return v as unknown as FeedbackLine;
  }
  return { bad: "unknown type" };
}
