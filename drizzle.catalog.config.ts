import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: ["./workers/search/schema/catalog.ts", "./workers/search/schema/experiments.ts", "./workers/search/schema/workbench.ts"],
  out: "./migrations/catalog",
});
