/**
 * Fuzzing the API inside workerd, over real local D1 and KV: a few thousand
 * generated requests (test/support/fuzz-requests.ts). No answer may be a
 * 5xx, every 4xx must be problem+json, and no input may come back as markup.
 * `npm run bench:fuzz` runs the same generator (10,000+) over HTTP.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type FuzzRequest, fuzzRequests, violation } from "../../tools/fuzz-requests.js";
import { get, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();

async function send(req: FuzzRequest) {
  const res = await get(req.target, {}, req.headers, req.method);
  return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

describe("fuzzed requests", () => {
  beforeAll(async () => {
    await publish(rounds.synthetic0);
  });

  it("never answer 5xx, always problem+json for 4xx, never echo markup", async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fuzzRequests({ anyMethod: false }), async (req) => {
        const { status, type, body } = await send(req);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expect(violation(req, status, type, body)).toBeNull();
      }),
      { numRuns: 3000, seed: 20261201 },
    );
    // The generator reaches the interesting answers, not only 404s.
    console.log("fuzz statuses", Object.fromEntries(statuses));
    for (const s of [200, 400, 404, 405, 431]) expect(statuses.get(s) ?? 0, `status ${s}`).toBeGreaterThan(20);
  }, 300_000);
});
