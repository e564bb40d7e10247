/**
 * The workbench's pages: GET / (search), GET /compare (two rounds, or a
 * round and BM25, side by side), GET /items/:id (an item's keywords per
 * round). Static documents that read the JSON API; see pages/shell.ts for
 * why nothing they show can inject markup.
 */
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, EVERY_ROUTE, problems } from "../api/responses.js";
import { ItemParams, PageHtml } from "../api/schemas.js";
import { COMPARE_PAGE } from "../pages/compare.js";
import { ITEM_PAGE } from "../pages/item.js";
import { QUERIES_PAGE } from "../pages/queries.js";
import { SEARCH_PAGE } from "../pages/search.js";
import { withNonce } from "../pages/shell.js";

const html = (description: string) => ({ 200: { description, content: { "text/html": { schema: PageHtml } } }, ...problems(...EVERY_ROUTE) });

export const pageRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "searchPage",
  summary: "The search page (HTML)",
  tags: ["pages"],
  responses: html("The search page."),
});
export const comparePageRoute = createRoute({
  method: "get",
  path: "/compare",
  operationId: "comparePage",
  summary: "The compare page (HTML): two rounds, or a round and BM25, side by side",
  tags: ["pages"],
  responses: html("The compare page; it reads /v1/rounds and /v1/compare."),
});
export const queriesPageRoute = createRoute({
  method: "get",
  path: "/queries",
  operationId: "queriesPage",
  summary: "The query-set page (HTML): two sides over a whole query set, worst queries first",
  tags: ["pages"],
  responses: html("The query-set page; it reads /v1/rounds, /v1/query-sets and /v1/query-set."),
});
export const itemPageRoute = createRoute({
  method: "get",
  path: "/items/{id}",
  operationId: "itemPage",
  summary: "An item's page (HTML): its keywords in each published round",
  tags: ["pages"],
  request: { params: ItemParams },
  responses: {
    ...problems(...DATA_ROUTE),
    200: { description: "The item page; it reads /v1/items/{id}/rounds.", content: { "text/html": { schema: PageHtml } } },
    // The same page (it says "not found" itself), with the status a crawler or a link checker reads.
    404: { description: "No published round holds the item: the item page with a 404 status.", content: { "text/html": { schema: PageHtml } } },
  },
});

export function mountPage(app: ApiApp) {
  app.openapi(pageRoute, (c) => c.html(withNonce(SEARCH_PAGE, c.get("secureHeadersNonce")), 200));
  app.openapi(comparePageRoute, (c) => c.html(withNonce(COMPARE_PAGE, c.get("secureHeadersNonce")), 200));
  app.openapi(queriesPageRoute, (c) => c.html(withNonce(QUERIES_PAGE, c.get("secureHeadersNonce")), 200));
  // One catalogue read (the rounds list is cached per isolate): /items/* is rate-limited like /v1/* (app.ts).
  app.openapi(itemPageRoute, async (c) => {
    const { id } = c.req.valid("param");
    const published = await c.var.services.catalog.publishedRounds();
    const found = published.length > 0 && (await c.var.services.catalog.itemInRounds(published, id)).length > 0;
    return c.html(withNonce(ITEM_PAGE, c.get("secureHeadersNonce")), found ? 200 : 404);
  });
}
