/**
 * The reward service verl's shim calls (training/verl/cogr_reward.py): a Hono
 * app on Node (scripts/reward-service.ts serves it with @hono/node-server).
 *
 *   GET  /healthz    no auth: side, round, sizes, and one sample row
 *   POST /v1/score   Bearer token: { samples: [{ data_source, solution_str,
 *                    ground_truth, extra_info? }] } → { scores: number[] }
 *
 * Errors are application/problem+json: 401 without the token, 400 naming the
 * first bad sample, 413 over the body or batch limits, 404 elsewhere.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { tokensEqual } from "../../core/contract.js";
import { type RewardEnvironment, SampleError } from "./environment.js";

export const REWARD_SERVICE_LIMITS = { bodyBytes: 32 * 2 ** 20, samplesPerRequest: 8192, solutionChars: 64 * 1024 } as const;

const Sample = z.object({
  data_source: z.string(),
  solution_str: z.string().max(REWARD_SERVICE_LIMITS.solutionChars),
  ground_truth: z.unknown(),
  extra_info: z.unknown().optional(),
});
const ScoreRequest = z.object({ samples: z.array(Sample).min(1).max(REWARD_SERVICE_LIMITS.samplesPerRequest) });

function problem(status: 400 | 401 | 404 | 413, title: string, detail: string) {
  return new Response(JSON.stringify({ type: "about:blank", title, status, detail }), {
    status,
    headers: { "content-type": "application/problem+json", ...(status === 401 ? { "www-authenticate": 'Bearer realm="cogr-reward"' } : {}) },
  });
}

export function rewardApp(env: RewardEnvironment, token: string): Hono {
  if (token === "") throw new Error("the reward service needs a token (COGR_REWARD_TOKEN)");
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok", side: env.side, round: env.round, items: env.items, queries: env.queries, sample: env.sample }));
  app.post(
    "/v1/score",
    async (c, next) => {
      const auth = c.req.header("authorization") ?? "";
      if (!auth.startsWith("Bearer ") || !(await tokensEqual(auth.slice(7), token)))
        return problem(401, "Unauthorized", "send Authorization: Bearer <COGR_REWARD_TOKEN>");
      await next();
    },
    bodyLimit({
      maxSize: REWARD_SERVICE_LIMITS.bodyBytes,
      onError: () => problem(413, "Payload too large", `the body is over ${REWARD_SERVICE_LIMITS.bodyBytes} bytes: send smaller batches`),
    }),
    async (c) => {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return problem(400, "Invalid body", "the body is not JSON");
      }
      if (
        Array.isArray((body as { samples?: unknown })?.samples) &&
        (body as { samples: unknown[] }).samples.length > REWARD_SERVICE_LIMITS.samplesPerRequest
      ) {
        return problem(413, "Payload too large", `at most ${REWARD_SERVICE_LIMITS.samplesPerRequest} samples per request`);
      }
      const parsed = ScoreRequest.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return problem(400, "Invalid body", `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
      }
      try {
        return c.json({ scores: parsed.data.samples.map((s, j) => env.score(s, j)) });
      } catch (e) {
        if (e instanceof SampleError) return problem(400, "Invalid sample", e.message);
        throw e;
      }
    },
  );
  app.notFound(() => problem(404, "Not found", "routes: GET /healthz, POST /v1/score"));
  return app;
}
