/**
 * Synthetic event files in export's format (training/clicks/events.ts), for
 * `npm run bench:events` and the click tests: users with hidden relevance
 * search, see ten results in a shuffled order (as interleaving and A/B arms
 * vary it), examine position k with probability 1/k, click what they find
 * relevant (Exact 0.8, Partial 0.4, else a 3 % noise click), add to cart and
 * buy a share of their Exact clicks; optionally one bot that clicks one item
 * for one query on every search.
 */
import { Rng } from "../../core/rng.js";

export interface SynthQuery {
  readonly text: string;
  readonly grades: ReadonlyMap<string, "Exact" | "Partial">;
}

export interface SynthEventOptions {
  readonly queries: readonly SynthQuery[];
  readonly items: readonly string[];
  readonly searches: number;
  readonly users: number;
  readonly seed: number;
  readonly bot?: { readonly query: string; readonly item: string; readonly searches: number };
  readonly startAt?: number;
}

export const SYNTH_CLICKS = { shown: 10, exact: 0.8, partial: 0.4, noise: 0.03, cart: 0.3, purchase: 0.5 } as const;

export function* synthEvents(o: SynthEventOptions): Generator<string> {
  // The bot draws from its own generator, so the honest lines are the same with and without it.
  const rng = new Rng(o.seed);
  const botRng = new Rng(o.seed ^ 0x5bd1e995);
  let at = o.startAt ?? 1_780_000_000_000;
  let n = 0;
  const search = function* (
    id: string,
    user: string,
    query: string,
    shown: readonly string[],
    clicks: (item: string, pos: number) => Array<"click" | "add_to_cart" | "purchase">,
  ) {
    yield JSON.stringify({
      type: "search",
      requestId: id,
      at,
      userHash: user,
      query,
      round: 0,
      shown: shown.map((itemId, j) => ({ itemId, position: j + 1 })),
    });
    for (let j = 0; j < shown.length; j++)
      for (const kind of clicks(shown[j] as string, j + 1))
        yield JSON.stringify({ type: "feedback", requestId: id, itemId: shown[j], kind, at: at + 1, userHash: user });
  };
  let bots = 0;
  for (let s = 0; s < o.searches; s++) {
    const q = o.queries[Math.floor(rng.next() * o.queries.length)] as SynthQuery;
    const user = `user-${Math.floor(rng.next() * o.users)}`;
    at += 1 + Math.floor(rng.next() * 50);
    const relevant = [...q.grades.keys()];
    // Half relevant, half anything: what a fair round shows; the order shuffled.
    const set = new Set<string>();
    for (let j = 0; set.size < Math.min(SYNTH_CLICKS.shown / 2, relevant.length) && j < 50; j++)
      set.add(relevant[Math.floor(rng.next() * relevant.length)] as string);
    for (let j = 0; set.size < SYNTH_CLICKS.shown && j < 50; j++) set.add(o.items[Math.floor(rng.next() * o.items.length)] as string);
    yield* search(`req-${String(n++).padStart(9, "0")}`, user, q.text, rng.shuffle([...set]), (item, pos) => {
      if (rng.next() >= 1 / pos) return [];
      const g = q.grades.get(item);
      const p = g === "Exact" ? SYNTH_CLICKS.exact : g === "Partial" ? SYNTH_CLICKS.partial : SYNTH_CLICKS.noise;
      if (rng.next() >= p) return [];
      if (g !== "Exact" || rng.next() >= SYNTH_CLICKS.cart) return ["click"];
      return rng.next() < SYNTH_CLICKS.purchase ? ["click", "add_to_cart", "purchase"] : ["click", "add_to_cart"];
    });
    const bot = o.bot;
    if (!bot) continue;
    for (; bots < Math.floor(((s + 1) * bot.searches) / o.searches); bots++) {
      const shown = [bot.item, ...Array.from({ length: SYNTH_CLICKS.shown - 1 }, () => o.items[Math.floor(botRng.next() * o.items.length)] as string)];
      yield* search(`bot-${String(bots).padStart(9, "0")}`, "bot", bot.query, botRng.shuffle([...new Set(shown)]), (item) =>
        item === bot.item ? ["click"] : [],
      );
    }
  }
}
