/**
 * Shoppers for `npm run simulate-loop`: users with hidden relevance who search
 * a running worker and click, add to cart and buy as a position-biased click
 * model says, plus noise clicks and one spam bot.
 *
 * The hidden relevance is the WANDS labels of the round's **training** queries
 * only: the click-trained round is then measured on dev queries no shopper
 * ever typed. The click model is the position-based model (PBM) that
 * training/clicks/ inverts: a result at rank k is examined with chance
 * (1/k)^η, and clicked, once examined, with a chance by its hidden grade.
 * Clicks are independent of each other given examination (no cascade), which
 * is the PBM's assumption; the worker learns nothing of the model's numbers.
 */
import { Rng } from "../../core/rng.js";
import type { Grade } from "../../training/data/types.js";
import { type SimulationData, sendFeedback, simulatedIp } from "./traffic.js";

export const SHOPPER_MODEL = {
  /** A shop's first page of results: a product grid of 24 (shops show 24–48; a page of 10 is a web search's). */
  resultsShown: 24,
  searchesPerUser: 3,
  /** Examination chance at rank k (1-based): (1/k)^examinationPower. */
  examinationPower: 1,
  clickGivenExamined: { Exact: 0.6, Partial: 0.25, Irrelevant: 0.04 } satisfies Record<Grade, number>,
  /** After a click: add to cart, then buy, by the item's hidden grade. */
  cartGivenClick: { Exact: 0.35, Partial: 0.1, Irrelevant: 0.01 } satisfies Record<Grade, number>,
  purchaseGivenCart: 0.5,
  /** Share of searches that also get one click on a uniformly chosen shown result, whatever its grade. */
  noiseClickShare: 0.05,
  /** The spam bot: one user key on one network, the same query again and again, clicking the same irrelevant item each time. */
  bot: { searchesPerThousand: 100, minSearches: 1000, concurrency: 2 },
} as const;

export interface ShopperCounts {
  searches: number;
  clicks: number;
  carts: number;
  purchases: number;
  noiseClicks: number;
  /** Searches and feedback the worker did not take (429s included). */
  failed: number;
}

export const newShopperCounts = (): ShopperCounts => ({ searches: 0, clicks: 0, carts: 0, purchases: 0, noiseClicks: 0, failed: 0 });

type Feedback = { requestId: string; itemId: string; type: "click" | "add_to_cart" | "purchase"; noise?: true };

async function search(url: string, userId: string, text: string): Promise<{ requestId: string; results: Array<{ id: string }> } | null> {
  const res = await fetch(`${url}/v1/search?q=${encodeURIComponent(text)}&limit=${SHOPPER_MODEL.resultsShown}`, {
    headers: { "x-user-id": userId, "cf-connecting-ip": simulatedIp(userId) },
  });
  if (!res.ok) {
    await res.arrayBuffer();
    return null;
  }
  return (await res.json()) as { requestId: string; results: Array<{ id: string }> };
}

/** One shopper's feedback on one result page, by the PBM. Pure: the rng decides. */
export function shopperFeedback(requestId: string, shown: readonly string[], grades: ReadonlyMap<string, Grade> | undefined, rng: Rng): Feedback[] {
  const m = SHOPPER_MODEL;
  const out: Feedback[] = [];
  shown.forEach((itemId, k) => {
    const grade = grades?.get(itemId) ?? "Irrelevant";
    if (rng.next() >= (1 / (k + 1)) ** m.examinationPower) return;
    if (rng.next() >= m.clickGivenExamined[grade]) return;
    out.push({ requestId, itemId, type: "click" });
    if (rng.next() >= m.cartGivenClick[grade]) return;
    out.push({ requestId, itemId, type: "add_to_cart" });
    if (rng.next() < m.purchaseGivenCart) out.push({ requestId, itemId, type: "purchase" });
  });
  if (shown.length > 0 && rng.next() < m.noiseClickShare) {
    const itemId = shown[Math.floor(rng.next() * shown.length)] as string;
    if (!out.some((f) => f.itemId === itemId && f.type === "click")) out.push({ requestId, itemId, type: "click", noise: true });
  }
  return out;
}

/** One shopper's session; feedback is sent as the session ends (after the search events have landed). */
async function shop(url: string, data: SimulationData, userId: string, rng: Rng, counts: ShopperCounts): Promise<void> {
  const feedback: Feedback[] = [];
  for (let s = 0; s < SHOPPER_MODEL.searchesPerUser; s++) {
    const q = data.queries[Math.floor(rng.next() * data.queries.length)] as { id: string; text: string };
    const page = await search(url, userId, q.text);
    if (!page) {
      counts.failed++;
      continue;
    }
    counts.searches++;
    feedback.push(
      ...shopperFeedback(
        page.requestId,
        page.results.map((r) => r.id),
        data.grades.get(q.id),
        rng,
      ),
    );
  }
  for (const { noise, ...f } of feedback) {
    if (!(await sendFeedback(url, userId, f))) counts.failed++;
    else if (f.type === "click") {
      counts.clicks++;
      if (noise) counts.noiseClicks++;
    } else if (f.type === "add_to_cart") counts.carts++;
    else counts.purchases++;
  }
}

/** Shoppers `from` … `to − 1`, `concurrency` at a time. User ids carry the seed and a phase name, so phases never share a user. */
export async function runShoppers(
  url: string,
  data: SimulationData,
  opts: { seed: number; phase: string; from: number; to: number; concurrency: number },
  counts: ShopperCounts,
): Promise<void> {
  let next = opts.from;
  const worker = async () => {
    while (next < opts.to) {
      const u = next++;
      await shop(url, data, `shopper-${opts.phase}-${opts.seed}-${u}`, new Rng(opts.seed * 7_368_787 + u * 31 + opts.phase.length), counts);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
}

export interface BotOutcome {
  readonly userId: string;
  readonly query: string;
  readonly itemId: string | null;
  searches: number;
  clicks: number;
  /** Requests refused (mostly 429: the bot's one key and one network are rate-limited). */
  refused: number;
}

/**
 * The spam bot: the same query `searches` times from one key and one network, clicking one item each time it
 * is shown: an irrelevant one from round 0's first page (the one it wants to push up).
 */
export async function runSpamBot(url: string, data: SimulationData, seed: number, searches: number): Promise<BotOutcome> {
  const rng = new Rng(seed * 104_729 + 17);
  const q = data.queries[Math.floor(rng.next() * data.queries.length)] as { id: string; text: string };
  const userId = `spam-bot-${seed}`;
  const first = await search(url, userId, q.text);
  const grades = data.grades.get(q.id);
  const target = first?.results.map((r) => r.id).find((id) => (grades?.get(id) ?? "Irrelevant") === "Irrelevant") ?? first?.results.at(-1)?.id ?? null;
  const outcome: BotOutcome = { userId, query: q.text, itemId: target, searches: 0, clicks: 0, refused: 0 };
  if (target === null) return outcome;
  let left = searches;
  const worker = async () => {
    while (left-- > 0) {
      const page = await search(url, userId, q.text);
      if (!page) {
        outcome.refused++;
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      outcome.searches++;
      if (!page.results.some((r) => r.id === target)) continue;
      if (await sendFeedback(url, userId, { requestId: page.requestId, itemId: target, type: "click" })) outcome.clicks++;
      else outcome.refused++;
    }
  };
  await Promise.all(Array.from({ length: SHOPPER_MODEL.bot.concurrency }, worker));
  return outcome;
}
