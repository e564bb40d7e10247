/** GET /v1/items/:id — the item as the serving round indexes it. */
import { Hono } from "hono";
import { Problem } from "../errors.js";
import type { ServicesEnv } from "../middleware/services.js";
import { currentRound } from "./round-choice.js";

export const items = new Hono<ServicesEnv>().get("/:id", async (c) => {
  const id = c.req.param("id");
  const round = await currentRound(c);
  const item = await c.var.services.catalog.itemById(round.round, id);
  if (!item) throw new Problem("notFound", `No item with id ${JSON.stringify(id.slice(0, 100))} in round ${round.round}`);
  return c.json({ round: round.round, id: item.id, name: item.name, class: item.class, category: item.category, keywords: item.keywords });
});
