import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./workers/search/schema/shard.ts",
  out: "./migrations/shard",
});
