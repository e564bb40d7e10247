import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { startFixtureServer } from "./test/support/fixture-server.js";
import { buildTestRounds } from "./test/support/worker-fixtures.js";
import { startOpenAiTestServer } from "./tools/openai-test-server.js";

/** Small limits, so the rate-limit tests reach them quickly: per user key (else IP), per IP on /v1, per IP on /admin. */
const TEST_RATE_LIMIT = { limit: 40, ipLimit: 60, adminLimit: 20, periodS: 60 } as const;
/** At least ADMIN_TOKEN_LIMITS.minChars (32) characters: the worker refuses a shorter one. */
const TEST_ADMIN_TOKEN = "test-admin-token-0123456789abcdef-0123";

export default defineConfig(async () => {
  const runsWorkers = !process.argv.some((a) => /test\/(core|training|node|contract|experiments)/.test(a));
  const rounds = runsWorkers ? await buildTestRounds() : null;
  const llm = runsWorkers ? await startOpenAiTestServer() : null;
  const fixtures = rounds ? await startFixtureServer({ rounds }) : "";
  const migrations = {
    catalog: await readD1Migrations("migrations/catalog"),
    shard: await readD1Migrations("migrations/shard"),
    events: await readD1Migrations("migrations/events"),
  };
  return {
    test: {
      // CI reads the counts from this report (.ci/run).
      reporters: process.env.CI ? ["default", "json"] : ["default"],
      outputFile: { json: "artifacts/test-results.json" },
      projects: [
        {
          test: {
            name: "node",
            include: [
              "test/core/**/*.test.ts",
              "test/training/**/*.test.ts",
              "test/node/**/*.test.ts",
              "test/contract/**/*.test.ts",
              "test/experiments/**/*.test.ts",
            ],
            environment: "node",
            testTimeout: 180_000,
            hookTimeout: 180_000,
          },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                // Small limits, so the rate-limit tests reach them quickly; helpers.send() gives every other request its own client IP.
                ratelimits: {
                  RATE_LIMITER: { simple: { limit: TEST_RATE_LIMIT.limit, period: TEST_RATE_LIMIT.periodS } },
                  IP_RATE_LIMITER: { simple: { limit: TEST_RATE_LIMIT.ipLimit, period: TEST_RATE_LIMIT.periodS } },
                  ADMIN_RATE_LIMITER: { simple: { limit: TEST_RATE_LIMIT.adminLimit, period: TEST_RATE_LIMIT.periodS } },
                },
                bindings: {
                  TEST_RATE_LIMIT: TEST_RATE_LIMIT.limit,
                  TEST_IP_RATE_LIMIT: TEST_RATE_LIMIT.ipLimit,
                  TEST_ADMIN_RATE_LIMIT: TEST_RATE_LIMIT.adminLimit,
                  READY_CACHE_TTL_MS: "0",
                  RATE_LIMIT_PERIOD_S: String(TEST_RATE_LIMIT.periodS),
                  ROUND_CACHE_TTL_MS: "0",
                  EVENTS_FLUSH_MS: "0",
                  ADMIN_TOKEN: TEST_ADMIN_TOKEN,
                  LLM_TIMEOUT_MS: "1500",
                  TEST_MIGRATIONS: migrations,
                  TEST_FIXTURES_URL: fixtures,
                  TEST_LLM_URL: llm?.url ?? "",
                },
              },
            }),
          ],
          test: {
            name: "workers",
            include: ["test/workers/**/*.test.ts"],
            setupFiles: ["test/workers/setup.ts"],
            testTimeout: 120_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  };
});
