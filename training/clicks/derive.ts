/**
 * From an event file to graded relevance (issue 23 §3), streamed in two
 * passes over the lines and never holding the events:
 *
 * 1. per user key: searches, feedback, distinct (query, item) pairs touched,
 *    searches with every result clicked → the spam verdicts (spam.ts);
 * 2. per (query, item, position): impressions and clicks weighted by the
 *    key's verdict, each key's feedback counted once per pair and kind →
 *    the PBM fit (pbm.ts) → exposure, evidence and grades (relevance.ts).
 *
 * Memory grows with keys, distinct pairs and (pair, position) cells, not
 * with events (`npm run bench:events` measures it at 1M events). The file
 * order is export's: each search followed by its feedback; feedback whose
 * search is not the line before it is counted and skipped.
 */
import { fnv1a32 } from "../../core/shard.js";
import { type EventLine, FEEDBACK_KINDS, type FeedbackKind, parseEventLine, type SearchLine } from "./events.js";
import { fitPbm } from "./pbm.js";
import { exposures, type GradedPair, grade, meanRate, type PairEvidence } from "./relevance.js";
import { type KeyStats, median, type SpamReason, verdict } from "./spam.js";

export const DERIVE_LIMITS = {
  /** Results below this rank are left out of the click model (a page is 10; pages deeper than 5 are rare). */
  maxPosition: 50,
  /** Key ids and pair ids share one safe-integer key: key × 2^30 + pair × 4 + kind. */
  maxKeys: 2 ** 23,
  maxPairs: 2 ** 28,
} as const;

export interface DeriveReport {
  lines: number;
  bad: Record<string, number>;
  searches: number;
  feedback: Record<FeedbackKind, number>;
  keys: number;
  medianClickRate: number;
  dropped: {
    "feedback-without-its-search": number;
    "feedback-on-an-item-not-shown": number;
    "duplicate-feedback": number;
  };
  discounted: Record<SpamReason, { keys: number; feedback: number }>;
  /** θ by position (1-based order), the PBM's examination propensity. */
  propensity: number[];
  pairs: number;
  judged: number;
  grades: { Exact: number; Partial: number; Irrelevant: number };
}

export interface DerivedPair extends GradedPair {
  readonly query: string;
  readonly itemId: string;
}

export interface ClickRelevance {
  readonly report: DeriveReport;
  /** Every (query, item) with evidence, sorted by query then item. */
  readonly pairs: readonly DerivedPair[];
}

class Grow {
  a: Float64Array = new Float64Array(1024);
  n = 0;
  at(j: number): number {
    return this.a[j] as number;
  }
  ensure(j: number): void {
    if (j < this.a.length) return;
    let size = this.a.length;
    while (size <= j) size *= 2;
    const b = new Float64Array(size);
    b.set(this.a);
    this.a = b;
  }
  add(j: number, v: number): void {
    this.ensure(j);
    this.a[j] = (this.a[j] as number) + v;
    this.n = Math.max(this.n, j + 1);
  }
  view(): Float64Array {
    return this.a.subarray(0, this.n);
  }
}

const pairHash = (query: string, item: string) => fnv1a32(`${query}\u0000${item}`);
const KIND = new Map(FEEDBACK_KINDS.map((k, j) => [k, j]));

/** Walks the file, pairing each feedback line with the search line it follows. */
function* walk(lines: Iterable<string>, bad: Record<string, number> | null) {
  let current: SearchLine | null = null;
  let shown = new Map<string, number>();
  for (const line of lines) {
    if (line === "") continue;
    const e = parseEventLine(line);
    if ("bad" in e) {
      if (bad) bad[e.bad] = (bad[e.bad] ?? 0) + 1;
      continue;
    }
    if (e.type === "search") {
      current = e;
      shown = new Map();
      for (const s of e.shown) if (!shown.has(s.itemId)) shown.set(s.itemId, s.position);
      yield { event: e as EventLine, search: e, position: 0 };
    } else {
      const matched = current !== null && current.requestId === e.requestId;
      yield { event: e as EventLine, search: matched ? current : null, position: matched ? (shown.get(e.itemId) ?? 0) : 0 };
    }
  }
}

export function deriveClickRelevance(lines: () => Iterable<string>): ClickRelevance {
  const report: DeriveReport = {
    lines: 0,
    bad: {},
    searches: 0,
    feedback: { click: 0, add_to_cart: 0, purchase: 0 },
    keys: 0,
    medianClickRate: 0,
    dropped: { "feedback-without-its-search": 0, "feedback-on-an-item-not-shown": 0, "duplicate-feedback": 0 },
    discounted: { "repeated-feedback": { keys: 0, feedback: 0 }, "clicks-every-result": { keys: 0, feedback: 0 }, "click-rate": { keys: 0, feedback: 0 } },
    propensity: [],
    pairs: 0,
    judged: 0,
    grades: { Exact: 0, Partial: 0, Irrelevant: 0 },
  };

  // Pass 1: what each key did.
  const keyIds = new Map<string, number>();
  const searches = new Grow();
  const feedback = new Grow();
  const distinct = new Grow();
  const allClicked = new Grow();
  const touched = new Set<number>();
  const keyOf = (hash: string) => {
    let k = keyIds.get(hash);
    if (k === undefined) {
      k = keyIds.size;
      if (k >= DERIVE_LIMITS.maxKeys) throw new Error(`more than ${DERIVE_LIMITS.maxKeys} user keys in one event file`);
      keyIds.set(hash, k);
    }
    return k;
  };
  let open: { key: number; shown: number; clicked: Set<string> } | null = null;
  const closeSearch = () => {
    if (open && open.shown >= 3 && open.clicked.size >= open.shown) allClicked.add(open.key, 1);
    open = null;
  };
  for (const { event, search, position } of walk(lines(), report.bad)) {
    report.lines++;
    if (event.type === "search") {
      closeSearch();
      report.searches++;
      const k = keyOf(event.userHash);
      if (event.shown.length > 0) searches.add(k, 1);
      open = { key: k, shown: new Set(event.shown.map((s) => s.itemId)).size, clicked: new Set() };
      continue;
    }
    report.feedback[event.kind]++;
    if (!search) {
      report.dropped["feedback-without-its-search"]++;
      continue;
    }
    if (position === 0) {
      report.dropped["feedback-on-an-item-not-shown"]++;
      continue;
    }
    const k = keyOf(search.userHash);
    feedback.add(k, 1);
    open?.clicked.add(event.itemId);
    const t = k * 2 ** 32 + pairHash(search.query, event.itemId);
    if (!touched.has(t)) {
      touched.add(t);
      distinct.add(k, 1);
    }
  }
  closeSearch();
  touched.clear();
  report.keys = keyIds.size;
  const stats = (k: number): KeyStats => ({ searches: searches.at(k), feedback: feedback.at(k), distinctPairs: distinct.at(k), allClicked: allClicked.at(k) });
  const rates = new Float64Array(keyIds.size);
  for (let k = 0; k < keyIds.size; k++) {
    searches.ensure(k);
    feedback.ensure(k);
    distinct.ensure(k);
    allClicked.ensure(k);
    const s = stats(k);
    rates[k] = s.searches === 0 ? 0 : s.distinctPairs / s.searches;
  }
  const searched = rates.filter((_, k) => searches.at(k) > 0);
  report.medianClickRate = median(searched);
  const weight = new Float64Array(keyIds.size);
  for (let k = 0; k < keyIds.size; k++) {
    const s = stats(k);
    const v = verdict(s, report.medianClickRate);
    weight[k] = v.weight;
    if (v.reason) {
      report.discounted[v.reason].keys++;
      report.discounted[v.reason].feedback += s.feedback;
    }
  }

  // Pass 2: weighted impressions and evidence per pair.
  const pairIds = new Map<string, number>();
  const pairNames: Array<[string, string]> = [];
  const cellIds = new Map<number, number>();
  const cellPair: number[] = [];
  const cellPos: number[] = [];
  const shown = new Grow();
  const clicked = new Grow();
  const evidence = [new Grow(), new Grow(), new Grow()]; // keys with feedback of any kind, add_to_cart, purchase
  const counted = new Set<number>();
  const pairOf = (query: string, item: string) => {
    const name = `${query}\u0000${item}`;
    let p = pairIds.get(name);
    if (p === undefined) {
      p = pairIds.size;
      if (p >= DERIVE_LIMITS.maxPairs) throw new Error(`more than ${DERIVE_LIMITS.maxPairs} (query, item) pairs in one event file`);
      pairIds.set(name, p);
      pairNames.push([query, item]);
    }
    return p;
  };
  const cellOf = (p: number, pos: number) => {
    const key = p * 64 + pos;
    let c = cellIds.get(key);
    if (c === undefined) {
      c = cellIds.size;
      cellIds.set(key, c);
      cellPair.push(p);
      cellPos.push(pos);
    }
    return c;
  };
  for (const { event, search, position } of walk(lines(), null)) {
    if (!search) continue;
    const k = keyIds.get(search.userHash) as number;
    const w = weight[k] as number;
    if (w === 0) continue;
    if (event.type === "search") {
      const seen = new Set<string>();
      for (const s of event.shown) {
        if (s.position > DERIVE_LIMITS.maxPosition || seen.has(s.itemId)) continue;
        seen.add(s.itemId);
        shown.add(cellOf(pairOf(event.query, s.itemId), s.position), w);
      }
      continue;
    }
    if (position === 0 || position > DERIVE_LIMITS.maxPosition) continue;
    const p = pairOf(search.query, event.itemId);
    const kind = KIND.get(event.kind) as number;
    const once = (j: number) => {
      const key = k * 2 ** 30 + p * 4 + j;
      if (counted.has(key)) return false;
      counted.add(key);
      return true;
    };
    if (!once(kind)) report.dropped["duplicate-feedback"]++;
    else if (kind > 0) evidence[kind]?.add(p, w);
    // Any feedback is a click for the click model, once per key and pair (a purchase implies one).
    if (once(3)) {
      clicked.add(cellOf(p, position), w);
      evidence[0]?.add(p, w);
    }
  }
  counted.clear();
  const cells = cellIds.size;
  shown.ensure(cells);
  clicked.ensure(cells);
  const imp = {
    pair: cellPair,
    position: cellPos,
    shown: shown.a.subarray(0, cells),
    clicked: clicked.a.subarray(0, cells),
    pairs: pairIds.size,
  };
  const fit = fitPbm(imp);
  report.propensity = [...fit.theta];
  const e = exposures(pairIds.size, imp, fit);
  for (const g of evidence) g.ensure(pairIds.size);
  const ev: PairEvidence[] = pairNames.map((_, p) => ({
    exposure: e[p] as number,
    clicks: evidence[0]?.at(p) ?? 0,
    carts: evidence[1]?.at(p) ?? 0,
    purchases: evidence[2]?.at(p) ?? 0,
  }));
  const mu = meanRate(ev);
  const pairs: DerivedPair[] = ev.map((x, p) => {
    const [query, itemId] = pairNames[p] as [string, string];
    return { query, itemId, ...grade(x, mu) };
  });
  pairs.sort((a, b) => (a.query < b.query ? -1 : a.query > b.query ? 1 : a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0));
  report.pairs = pairs.length;
  for (const p of pairs) {
    if (p.grade === null) continue;
    report.judged++;
    report.grades[p.grade]++;
  }
  return { report, pairs };
}
