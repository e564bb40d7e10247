/** The round(s) that answer this request (../../experiments/routing.ts), or a 503 problem when none is published. */
import type { Context } from "hono";
import type { ServingManifest } from "../../../core/contract.js";
import { intVar } from "../bindings.js";
import { Problem } from "../errors.js";
import { servingConfig } from "../experiments/live.js";
import { type Routed, route } from "../experiments/routing.js";
import { SERVING_LIMITS } from "../limits.js";
import type { ServicesEnv } from "../middleware/services.js";

export async function routeRequest(c: Context<ServicesEnv>): Promise<Routed> {
  const published = await c.var.services.catalog.publishedRounds();
  if (published.length === 0) throw new Problem("noRound", "No round is published yet: run `npm run publish -- --round N`.");
  const config = await servingConfig(c.env.CACHE, intVar(c.env.ROUND_CACHE_TTL_MS, SERVING_LIMITS.roundCacheTtlMsDefault));
  return route(published, config, c.var.userKey) as Routed;
}

/** One round for this request: its arm's, or control's for an interleaved one; and the experiment that chose it, if any. */
export async function currentRound(c: Context<ServicesEnv>): Promise<{ round: ServingManifest; experiment: string | null }> {
  const routed = await routeRequest(c);
  return { round: routed.kind === "single" ? routed.round : routed.control, experiment: routed.experiment };
}
