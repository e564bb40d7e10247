/** Entry point of the `search` worker (wrangler.toml `main`): the API, and the guardrails on a cron trigger. */

import { createApp } from "./app.js";
import type { Env } from "./bindings.js";
import { enforceGuardrails } from "./experiments/guardrails.js";
import { enforceRetention } from "./experiments/retention.js";
import { ExperimentStore } from "./experiments/store.js";
import { refreshPopularQueries } from "./suggest-queries.js";

const app = createApp();

/**
 * The cron handler: evaluates the running experiment's guardrails (rollback, or pause), keeps the KV mirror in step
 * with D1, deletes events older than the retention window, and refreshes the popular queries suggestions offer.
 */
export async function scheduled(env: Env, now = Date.now()): Promise<void> {
  const store = new ExperimentStore(env.CATALOG, env.CACHE);
  if (!env.EVENTS) {
    await store.mirror();
    return;
  }
  const outcome = await enforceGuardrails(store, env.EVENTS);
  if (outcome) console.log(`guardrails: ${outcome.experiment} ${outcome.action === "none" ? "healthy" : `${outcome.action} (${outcome.reasons.join("; ")})`}`);
  const kept = await enforceRetention(env.EVENTS, env.EVENTS_RETENTION_DAYS, now);
  if (kept.searches + kept.feedback > 0)
    console.log(`retention: deleted ${kept.searches} searches and ${kept.feedback} feedback events older than ${new Date(kept.cutoff).toISOString()}`);
  // Suggestions' popular queries, rebuilt at most hourly; a failure leaves the last ones (or none) and the cron's other work done.
  await refreshPopularQueries(env.EVENTS, env.CACHE, now).catch((e) => console.warn("popular queries not refreshed:", (e as Error).message));
}

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  scheduled: (_controller, env, ctx) => ctx.waitUntil(scheduled(env)),
} satisfies ExportedHandler<Env>;
