import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { startFixtureServer } from "./test/support/fixture-server.js";
import { startOpenAiTestServer } from "./test/support/openai-test-server.js";
import { buildTestRounds } from "./test/support/worker-fixtures.js";

export default defineConfig(async () => {
  const runsWorkers = !process.argv.some((a) => /test\/(core|training|node)/.test(a));
  const rounds = runsWorkers ? buildTestRounds() : null;
  const llm = runsWorkers ? await startOpenAiTestServer() : null;
  const fixtures = rounds ? await startFixtureServer({ rounds }) : "";
  const migrations = {
    catalog: await readD1Migrations("migrations/catalog"),
    shard: await readD1Migrations("migrations/shard"),
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
            include: ["test/core/**/*.test.ts", "test/training/**/*.test.ts", "test/node/**/*.test.ts"],
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
                bindings: {
                  ROUND_CACHE_TTL_MS: "0",
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
