/** The round that answers this request (see ../rollout.ts), or a 503 problem when none is published. */
import type { Context } from "hono";
import type { ServingManifest } from "../../publish/manifest.js";
import { Problem } from "../errors.js";
import type { ServicesEnv } from "../middleware/services.js";
import { pickRound, ROLLOUT_KEY, type Rollout } from "../rollout.js";

export async function currentRound(c: Context<ServicesEnv>): Promise<ServingManifest> {
  const published = await c.var.services.catalog.publishedRounds();
  const rollout = published.length > 1 ? await c.env.CACHE.get<Rollout>(ROLLOUT_KEY, "json") : null;
  const userKey = c.req.header("x-cogr-user") ?? c.req.header("cf-connecting-ip") ?? "anonymous";
  const round = pickRound(published, rollout, userKey);
  if (!round) throw new Problem("noRound", "No round is published yet: run `npm run publish -- --round N`.");
  return round;
}
