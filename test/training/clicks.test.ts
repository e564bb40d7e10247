/**
 * The click model (training/clicks/*), pure: the PBM's EM recovers a known
 * examination propensity from randomised logs (a property over random
 * propensities and relevances), purchases weigh more than clicks, items never
 * shown stay unknown, a key's feedback counts once per (query, item), and a
 * bot that clicks one item thousands of times changes no derived relevance.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Rng } from "../../core/rng.js";
import { deriveClickRelevance } from "../../training/clicks/derive.js";
import type { FeedbackKind } from "../../training/clicks/events.js";
import { fitPbm } from "../../training/clicks/pbm.js";

/** Simulated aggregated impressions: every pair shown at uniformly random positions (the order randomised, as interleaving does). */
function simulate(theta: readonly number[], gamma: readonly number[], perPair: number, seed: number) {
  const rng = new Rng(seed);
  const pair: number[] = [];
  const position: number[] = [];
  const shown: number[] = [];
  const clicked: number[] = [];
  gamma.forEach((g, p) => {
    const n = new Array(theta.length).fill(0);
    const c = new Array(theta.length).fill(0);
    for (let j = 0; j < perPair; j++) {
      const k = Math.floor(rng.next() * theta.length);
      n[k]++;
      if (rng.next() < (theta[k] as number) && rng.next() < g) c[k]++;
    }
    for (let k = 0; k < theta.length; k++) {
      if (n[k] === 0) continue;
      pair.push(p);
      position.push(k + 1);
      shown.push(n[k]);
      clicked.push(c[k]);
    }
  });
  return { pair, position, shown, clicked, pairs: gamma.length };
}

describe("the position-based model (EM)", () => {
  it("recovers a known propensity from randomised logs", () => {
    fc.assert(
      fc.property(
        fc.float({ min: Math.fround(0.3), max: Math.fround(1.5), noNaN: true }),
        fc.array(fc.float({ min: Math.fround(0.05), max: Math.fround(0.95), noNaN: true }), { minLength: 30, maxLength: 40 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (eta, gamma, seed) => {
          const theta = Array.from({ length: 6 }, (_, k) => 1 / (k + 1) ** eta);
          const fit = fitPbm(simulate(theta, gamma, 3000, seed));
          expect(fit.theta[0]).toBe(1);
          for (let k = 1; k < theta.length; k++) expect(Math.abs((fit.theta[k] as number) - (theta[k] as number))).toBeLessThan(0.06);
        },
      ),
      { numRuns: 12, seed: 23 },
    );
  });
});

/** An event log: each search followed by its feedback. */
class Log {
  readonly lines: string[] = [];
  private n = 0;
  search(user: string, query: string, items: readonly string[], feedback: ReadonlyArray<[string, FeedbackKind]> = []) {
    const requestId = `r${this.n++}`;
    const at = 1_700_000_000_000 + this.n;
    this.lines.push(
      JSON.stringify({ type: "search", requestId, at, userHash: user, query, round: 0, shown: items.map((itemId, j) => ({ itemId, position: j + 1 })) }),
    );
    for (const [itemId, kind] of feedback) this.lines.push(JSON.stringify({ type: "feedback", requestId, itemId, kind, at: at + 1, userHash: user }));
  }
}

/** Honest users: each query's relevant items get clicked, in rotating orders. */
function honest(log: Log, users = 40) {
  const items = ["a", "b", "c", "d", "e", "f"];
  for (let u = 0; u < users; u++) {
    const order = [...items.slice(u % 6), ...items.slice(0, u % 6)];
    const fb: Array<[string, FeedbackKind]> = [];
    if (order.indexOf("a") < 4) fb.push(["a", "click"]);
    if (order.indexOf("b") < 4 && u % 2 === 0) fb.push(["b", "click"]);
    if (order.indexOf("c") < 4 && u % 4 === 0) fb.push(["c", "click"], ["c", "purchase"]);
    log.search(`u${u}`, "oak desk", order, fb);
  }
}

const derive = (lines: readonly string[]) => deriveClickRelevance(() => lines, { keepUnjudged: true });
const byItem = (r: ReturnType<typeof derive>) => new Map(r.pairs.map((p) => [p.itemId, p]));

describe("deriving relevance", () => {
  it("grades from examination-corrected feedback, purchases weighing more, with a confidence", () => {
    const log = new Log();
    honest(log);
    const r = derive(log.lines);
    const items = byItem(r);
    expect(r.report.searches).toBe(40);
    expect(items.get("a")?.grade).toBe("Exact");
    expect(items.get("f")?.grade).toBe("Irrelevant");
    // c is clicked by fewer keys than b but bought by each of them: the purchase lifts it above b.
    expect(items.get("c")?.clicks).toBeLessThan(items.get("b")?.clicks ?? 0);
    expect(items.get("c")?.utility).toBeGreaterThan(items.get("b")?.utility ?? 0);
    for (const p of r.pairs) expect(p.confidence).toBeGreaterThan(0.5);
    expect(r.pairs).toHaveLength(6);
  });

  it("leaves items never shown unknown, and items shown where nobody looks unjudged", () => {
    const log = new Log();
    honest(log);
    log.search("late", "oak desk", ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "deep"]);
    const r = derive(log.lines);
    const items = byItem(r);
    expect(items.has("never-shown")).toBe(false);
    expect(items.get("deep")?.exposure).toBeLessThan(1);
    expect(items.get("deep")?.grade).toBeNull();
  });

  it("counts a key's feedback once per (query, item)", () => {
    const once = new Log();
    honest(once);
    const r1 = derive(once.lines);
    const again = new Log();
    honest(again);
    // u0 (who clicked a in its first search) clicks a again in two more searches of the same query, once twice.
    again.search("u0", "oak desk", ["a", "b", "c", "d", "e", "f"], [["a", "click"]]);
    again.search(
      "u0",
      "oak desk",
      ["a", "b", "c", "d", "e", "f"],
      [
        ["a", "click"],
        ["a", "click"],
      ],
    );
    const r2 = derive(again.lines);
    expect(byItem(r2).get("a")?.clicks).toBe(byItem(r1).get("a")?.clicks);
    expect(r2.report.dropped["duplicate-feedback"]).toBe(3);
    // Feedback not right after its search (here: repeated at the end of the file) is counted and skipped.
    const misplaced = [...once.lines, ...once.lines.filter((l) => l.includes('"feedback"')).slice(0, 2)];
    expect(derive(misplaced).report.dropped["feedback-without-its-search"]).toBe(2);
  });

  it("a bot clicking one item thousands of times moves nothing, and is reported", () => {
    const log = new Log();
    honest(log);
    const withBot = new Log();
    honest(withBot);
    for (let j = 0; j < 3000; j++) withBot.search("bot", "oak desk", ["a", "b", "c", "d", "e", "f"], [["f", "click"]]);
    const clean = derive(log.lines);
    const botted = derive(withBot.lines);
    expect(botted.pairs).toEqual(clean.pairs);
    expect(botted.report.discounted["repeated-feedback"]).toEqual({ keys: 1, feedback: 3000 });
    expect(byItem(botted).get("f")?.grade).toBe("Irrelevant");
  });

  it("discounts a key that clicks every result", () => {
    const log = new Log();
    honest(log);
    for (let j = 0; j < 3; j++)
      log.search(
        `all-${j}`,
        "oak desk",
        ["d", "e", "f"],
        [
          ["d", "click"],
          ["e", "click"],
          ["f", "click"],
        ],
      );
    log.search(
      "all-0",
      "pine desk",
      ["d", "e", "f"],
      [
        ["d", "click"],
        ["e", "click"],
        ["f", "click"],
      ],
    );
    const r = derive(log.lines);
    expect(r.report.discounted["clicks-every-result"].keys).toBe(1);
  });

  it("counts bad lines by reason and skips them", () => {
    const log = new Log();
    honest(log, 6);
    const r = derive([...log.lines, "not json", JSON.stringify({ type: "search", requestId: "x", at: 1, userHash: "u" }), ""]);
    expect(r.report.bad).toEqual({ "not JSON": 1, "a search without query, round or shown": 1 });
    expect(r.report.searches).toBe(6);
  });
});
