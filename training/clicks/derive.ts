/**
 * From an event file to graded relevance (issue 23 §3), streamed in two
 * passes over the lines and never holding the events:
 *
 * 1. per user key: searches, feedback, distinct (query, item) pairs touched,
 *    searches with every result clicked → the spam verdicts (spam.ts);
 * 2. per impression (pair, position): shown and clicked, weighted by the
 *    key's verdict, each key's feedback counted once per pair and kind →
 *    the PBM fit (pbm.ts) → exposure, evidence and grades (relevance.ts).
 *
 * Memory: a map entry per user key, query, item and distinct pair, and 24
 * bytes per impression (typed arrays), never the events' text
 * (`npm run bench:events` measures it at 1M events). The file
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
  /** Key ids and pair ids (or 28-bit pair hashes) share one safe-integer key: key × 2^30 + pair × 4 + kind. */
  maxKeys: 2 ** 23,
  maxPairs: 2 ** 28,
  /** A pair is keyed query × maxItems + item, inside 2^53. */
  maxItems: 2 ** 24,
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
  /** Every judged (query, item), with `keepUnjudged` every one shown, sorted by query then item. */
  readonly pairs: readonly DerivedPair[];
}

/** A growable typed array (doubling), zero-filled. */
class Grow<T extends Float64Array | Int32Array = Float64Array> {
  a: T;
  constructor(private readonly make: (n: number) => T = (n) => new Float64Array(n) as T) {
    this.a = make(1024);
  }
  n = 0;
  at(j: number): number {
    return this.a[j] as number;
  }
  ensure(j: number): void {
    if (j < this.a.length) return;
    let size = this.a.length;
    while (size <= j) size *= 2;
    const b = this.make(size);
    b.set(this.a);
    this.a = b;
  }
  add(j: number, v: number): void {
    this.ensure(j);
    this.a[j] = (this.a[j] as number) + v;
    this.n = Math.max(this.n, j + 1);
  }
  view(): T {
    return this.a.subarray(0, this.n) as T;
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

export function deriveClickRelevance(lines: () => Iterable<string>, opts: { readonly keepUnjudged?: boolean } = {}): ClickRelevance {
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
  const distinctKinds = new Grow();
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
    // (key, pair) and (key, pair, kind) as numbers: key × 2^30 + 28 bits of the pair's hash × 4 + kind (3: the pair
    // itself). Pairs are compared within one key, so a 28-bit collision merges two of its few pairs at worst.
    const t = k * 2 ** 30 + (pairHash(search.query, event.itemId) >>> 4) * 4;
    if (!touched.has(t + 3)) {
      touched.add(t + 3);
      distinct.add(k, 1);
    }
    const kind = KIND.get(event.kind) as number;
    if (!touched.has(t + kind)) {
      touched.add(t + kind);
      distinctKinds.add(k, 1);
    }
  }
  closeSearch();
  touched.clear();
  report.keys = keyIds.size;
  const stats = (k: number): KeyStats => ({
    searches: searches.at(k),
    feedback: feedback.at(k),
    distinctPairs: distinct.at(k),
    distinctFeedback: distinctKinds.at(k),
    allClicked: allClicked.at(k),
  });
  const rates = new Float64Array(keyIds.size);
  for (let k = 0; k < keyIds.size; k++) {
    searches.ensure(k);
    feedback.ensure(k);
    distinct.ensure(k);
    distinctKinds.ensure(k);
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
  // Queries and items interned to numbers, a pair keyed by query × 2^24 + item: a string key per pair would cost
  // several times the memory at a million events (bench:events).
  const queryIds = new Map<string, number>();
  const itemIds = new Map<string, number>();
  const queryNames: string[] = [];
  const itemNames: string[] = [];
  const pairIds = new Map<number, number>();
  const pairQuery: number[] = [];
  const pairItem: number[] = [];
  const intern = (ids: Map<string, number>, names: string[], name: string) => {
    let id = ids.get(name);
    if (id === undefined) {
      id = names.length;
      ids.set(name, id);
      names.push(name);
    }
    return id;
  };
  // One entry per weighted impression (pair, position, key weight, clicked weight): 24 bytes, no map.
  const impPair = new Grow<Int32Array>((n) => new Int32Array(n));
  const impPos = new Grow<Int32Array>((n) => new Int32Array(n));
  const shown = new Grow();
  const clicked = new Grow();
  let impressions = 0;
  let onPage = new Map<string, number>();
  const evidence = [new Grow(), new Grow(), new Grow()]; // keys with feedback of any kind, add_to_cart, purchase
  const counted = new Set<number>();
  const pairOf = (query: string, item: string) => {
    const q = intern(queryIds, queryNames, query);
    const i = intern(itemIds, itemNames, item);
    if (i >= DERIVE_LIMITS.maxItems) throw new Error(`more than ${DERIVE_LIMITS.maxItems} items in one event file`);
    const key = q * DERIVE_LIMITS.maxItems + i;
    let p = pairIds.get(key);
    if (p === undefined) {
      p = pairIds.size;
      if (p >= DERIVE_LIMITS.maxPairs) throw new Error(`more than ${DERIVE_LIMITS.maxPairs} (query, item) pairs in one event file`);
      pairIds.set(key, p);
      pairQuery.push(q);
      pairItem.push(i);
    }
    return p;
  };
  for (const { event, search, position } of walk(lines(), null)) {
    if (!search) continue;
    const k = keyIds.get(search.userHash) as number;
    const w = weight[k] as number;
    if (w === 0) continue;
    if (event.type === "search") {
      onPage = new Map();
      for (const s of event.shown) {
        if (s.position > DERIVE_LIMITS.maxPosition || onPage.has(s.itemId)) continue;
        const j = impressions++;
        onPage.set(s.itemId, j);
        impPair.add(j, pairOf(event.query, s.itemId));
        impPos.add(j, s.position);
        shown.add(j, w);
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
      clicked.add(onPage.get(event.itemId) as number, w);
      evidence[0]?.add(p, w);
    }
  }
  counted.clear();
  const cells = impressions;
  for (const g of [shown, clicked, impPair, impPos]) g.ensure(cells);
  const imp = {
    pair: impPair.a.subarray(0, cells),
    position: impPos.a.subarray(0, cells),
    shown: shown.a.subarray(0, cells),
    clicked: clicked.a.subarray(0, cells),
    pairs: pairIds.size,
  };
  const fit = fitPbm(imp);
  report.propensity = [...fit.theta];
  const e = exposures(pairIds.size, imp, fit);
  for (const g of evidence) g.ensure(pairIds.size);
  const evidenceOf = (p: number): PairEvidence => ({
    exposure: e[p] as number,
    clicks: evidence[0]?.at(p) ?? 0,
    carts: evidence[1]?.at(p) ?? 0,
    purchases: evidence[2]?.at(p) ?? 0,
  });
  const mu = meanRate(
    (function* () {
      for (let p = 0; p < pairIds.size; p++) yield evidenceOf(p);
    })(),
  );
  const pairs: DerivedPair[] = [];
  report.pairs = pairIds.size;
  for (let p = 0; p < pairIds.size; p++) {
    const g = grade(evidenceOf(p), mu);
    if (g.grade !== null) {
      report.judged++;
      report.grades[g.grade]++;
    } else if (!opts.keepUnjudged) continue;
    pairs.push({ query: queryNames[pairQuery[p] as number] as string, itemId: itemNames[pairItem[p] as number] as string, ...g });
  }
  pairs.sort((a, b) => (a.query < b.query ? -1 : a.query > b.query ? 1 : a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0));
  return { report, pairs };
}
