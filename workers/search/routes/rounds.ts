/** GET /v1/rounds — published rounds and their manifests' public fields. */
import { Hono } from "hono";
import { publicManifest } from "../../publish/manifest.js";
import type { ServicesEnv } from "../middleware/services.js";

export const roundsRoute = new Hono<ServicesEnv>().get("/", async (c) => {
  const published = await c.var.services.catalog.publishedRounds();
  return c.json({ rounds: published.map(publicManifest) });
});
