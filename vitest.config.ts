import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // CI reads the counts from this report (.ci/run).
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: "artifacts/test-results.json" },
    projects: [
      {
        test: {
          name: "node",
          include: ["test/core/**/*.test.ts", "test/training/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
