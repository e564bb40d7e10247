/** GET /v1/items/:id — the item as the serving round indexes it. */
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { Item, ItemParams, UserKeyHeaders } from "../api/schemas.js";
import { Problem } from "../errors.js";
import { currentRound } from "./round-choice.js";

export const itemRoute = createRoute({
  method: "get",
  path: "/v1/items/{id}",
  operationId: "getItem",
  summary: "One item as the serving round indexes it",
  tags: ["search"],
  request: { params: ItemParams, headers: UserKeyHeaders },
  responses: { 200: json("The item and its keywords.", Item), ...problems(...DATA_ROUTE, 404) },
});

export function mountItems(app: ApiApp) {
  app.openapi(itemRoute, async (c) => {
    const { id } = c.req.valid("param");
    const round = await currentRound(c);
    const item = await c.var.services.catalog.itemById(round, id);
    if (!item) throw new Problem("notFound", `No item with id ${JSON.stringify(id.slice(0, 100))} in round ${round.round}`);
    return c.json({ round: round.round, id: item.id, name: item.name, class: item.class, category: item.category, keywords: [...item.keywords] }, 200);
  });
}
