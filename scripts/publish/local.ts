/** Publish a round artifact into local state through the bindings: what `npm start`, `publish --local` and bench:serve share. */
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { normalizeKeyword } from "../../core/normalize.js";
import { QUERY_KEYWORDS_FILE, readQueryKeywords } from "../../training/llm/query-keywords.js";
import type { Round } from "../../training/round-artifact.js";
import { keywordCacheKeyOf, type PublishPlan, planPublish } from "../../workers/publish/plan.js";
import { type PublishOptions, type PublishOutcome, type PublishProgress, publishRound } from "../../workers/publish/publisher.js";
import type { DeployConfig } from "./deploy-config.js";
import type { OpenTarget } from "./targets.js";

export function planFor(round: Round, config: DeployConfig): PublishPlan {
  const plan = planPublish(
    { manifest: round.manifest, items: round.items, index: round.serializedIndex, queryGenerator: round.queryGenerator },
    config.shards.length,
  );
  return { ...plan, kv: [...plan.kv, ...warmKeywordCache(round, plan)] };
}

/**
 * An LLM round's precomputed query keywords, as the worker's keyword cache
 * holds them (workers/search/keywords.ts keywordCacheKey): those queries are
 * answered without calling the model, from the first request on.
 */
function warmKeywordCache(round: Round, plan: PublishPlan): Array<[string, string]> {
  if (round.queryGenerator.kind !== "llm" || !round.manifest.checksums[QUERY_KEYWORDS_FILE]) return [];
  const root = dirname(dirname(round.dir));
  const out: Array<[string, string]> = [];
  for (const line of readQueryKeywords(round.manifest.round, root).values()) {
    if (line.source !== "llm") continue; // fallbacks are not the round's answer
    const hash = createHash("sha256").update(normalizeKeyword(line.query)).digest("hex");
    out.push([keywordCacheKeyOf(plan.round, plan.manifest.contentHash, hash), JSON.stringify({ keywords: line.keywords, source: "llm" })]);
  }
  return out;
}

/** Runs the publish and always releases the target. */
export async function publishTo(target: OpenTarget, plan: PublishPlan, progress?: PublishProgress, opts?: PublishOptions): Promise<PublishOutcome> {
  try {
    return await publishRound(target, plan, progress, opts);
  } finally {
    await target.dispose();
  }
}
