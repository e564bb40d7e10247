/**
 * GET /v1/items/:id — the item as the serving round indexes it;
 * GET /v1/items/:id/rounds — its keywords in every published round (the workbench's item page).
 */
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { Item, ItemParams, ItemRounds, UserKeyHeaders } from "../api/schemas.js";
import { Problem } from "../errors.js";
import { isAdminView } from "../middleware/admin-view.js";
import { WorkbenchStore } from "../workbench/store.js";
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

export const itemRoundsRoute = createRoute({
  method: "get",
  path: "/v1/items/{id}/rounds",
  operationId: "getItemRounds",
  summary: "One item's keywords in every published round",
  tags: ["workbench"],
  request: { params: ItemParams },
  responses: { 200: json("The item and its keywords per round, newest first.", ItemRounds), ...problems(...DATA_ROUTE, 404) },
});

export function mountItems(app: ApiApp) {
  app.openapi(itemRoundsRoute, async (c) => {
    const { id } = c.req.valid("param");
    const published = await c.var.services.catalog.publishedRounds();
    if (published.length === 0) throw new Problem("noRound", "No round is published yet: run `npm run publish -- --round N`.");
    const found = await c.var.services.catalog.itemInRounds(published, id);
    const first = found[0]?.item;
    if (!first) throw new Problem("notFound", `No item with id ${JSON.stringify(id.slice(0, 100))} in any published round`);
    return c.json(
      {
        id: first.id,
        name: first.name,
        class: first.class,
        category: first.category,
        rounds: found.map((f) => ({ round: f.round, keywords: [...f.item.keywords] })),
        details: await new WorkbenchStore(c.env.CATALOG, c.env.EVENTS).itemDetails(first.id),
      },
      200,
    );
  });
  app.openapi(itemRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { round, experiment } = await currentRound(c);
    // Under an experiment the round is this user's arm: the admin view only (as on /v1/search).
    const disclose = experiment === null || (await isAdminView(c.env.ADMIN_TOKEN, c.req.header("authorization")));
    const item = await c.var.services.catalog.itemById(round, id);
    if (!item)
      throw new Problem("notFound", `No item with id ${JSON.stringify(id.slice(0, 100))} in ${disclose ? `round ${round.round}` : "the serving round"}`);
    const shown = { id: item.id, name: item.name, class: item.class, category: item.category, keywords: [...item.keywords] };
    return c.json(disclose ? { round: round.round, ...shown } : shown, 200);
  });
}
