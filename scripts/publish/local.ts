/** Publish a round artifact into local state through the bindings: what `npm start`, `publish --local` and bench:serve share. */
import type { Round } from "../../training/round-artifact.js";
import { type PublishPlan, planPublish } from "../../workers/publish/plan.js";
import { type PublishOptions, type PublishOutcome, type PublishProgress, publishRound } from "../../workers/publish/publisher.js";
import type { DeployConfig } from "./deploy-config.js";
import type { OpenTarget } from "./targets.js";

export function planFor(round: Round, config: DeployConfig): PublishPlan {
  return planPublish(
    { manifest: round.manifest, items: round.items, index: round.serializedIndex, queryGenerator: round.queryGenerator },
    config.shards.length,
  );
}

/** Runs the publish and always releases the target. */
export async function publishTo(target: OpenTarget, plan: PublishPlan, progress?: PublishProgress, opts?: PublishOptions): Promise<PublishOutcome> {
  try {
    return await publishRound(target, plan, progress, opts);
  } finally {
    await target.dispose();
  }
}
