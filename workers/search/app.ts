/** The search API: small sub-apps mounted on one Hono app, errors through one onError. */
import { Hono } from "hono";
import { cors } from "hono/cors";
import { notFound, onError } from "./errors.js";
import { type ServicesEnv, services } from "./middleware/services.js";
import { health } from "./routes/health.js";
import { items } from "./routes/items.js";
import { openapi } from "./routes/openapi.js";
import { page } from "./routes/page.js";
import { roundsRoute } from "./routes/rounds.js";
import { search } from "./routes/search.js";

export function createApp() {
  const app = new Hono<ServicesEnv>();
  app.use("*", cors({ origin: "*", allowMethods: ["GET", "HEAD", "OPTIONS"] }));
  app.route("/healthz", health);
  app.route("/openapi.json", openapi);
  app.route("/", page);
  app.use("/v1/*", services);
  app.route("/v1/search", search);
  app.route("/v1/items", items);
  app.route("/v1/rounds", roundsRoute);
  app.notFound(notFound);
  app.onError(onError);
  return app;
}
