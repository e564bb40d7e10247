import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./workers/search/schema/events.ts",
  out: "./migrations/events",
});
