/** Traffic for the experiment tests in workerd: the cron handler, and user keys chosen by arm, as an attacker who knew its arm would choose them. */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { armOfBucket, bucketOf } from "../../workers/search/experiments/assignment.js";
import type { Arm } from "../../workers/search/experiments/config.js";
import worker from "../../workers/search/index.js";
import { clearIsolateCaches } from "./helpers.js";

/** Runs the cron handler (the guardrails) as the scheduler would, and waits for it. */
export async function cron(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
  clearIsolateCaches({ keepGenerators: true });
}

/** Bindings that lift every rate limiter: the attack tests show what the counting does for a client pacing itself under the limits. */
export const unthrottled: Record<string, undefined> = Object.fromEntries(
  Object.entries(env)
    .filter(([name, v]) => /RATE_LIMIT/.test(name) && typeof (v as { limit?: unknown } | null)?.limit === "function")
    .map(([name]) => [name, undefined]),
);

/** `count` X-User-Id values that the salt puts in round `want`'s arm (the worker's user key is the header's, prefixed h:). */
export function keysIn(salt: string, arms: readonly Arm[], control: number, want: number, count: number, tag: string): string[] {
  const ci = arms.findIndex((a) => a.round === control);
  const wantIndex = arms.findIndex((a) => a.round === want);
  const keys: string[] = [];
  for (let j = 0; keys.length < count; j++) if (armOfBucket(arms, ci, bucketOf(salt, `h:${tag}-${j}`)) === wantIndex) keys.push(`${tag}-${j}`);
  return keys;
}

/** An address on a /24 of its own for honest user `u` (a header value only). */
export const ownNetwork = (u: number) => `10.${(u >> 8) & 255}.${u & 255}.7`;
