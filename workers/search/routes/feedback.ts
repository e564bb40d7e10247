/**
 * POST /v1/feedback {requestId, itemId, type}: a click, add-to-cart or
 * purchase on a result the search showed. Validated against the recorded
 * search (it exists, is recent, showed the item); a duplicate counts once.
 * Rate-limited per user key like every /v1 route.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../api/app-type.js";
import { DATA_ROUTE, json, problems } from "../api/responses.js";
import { Problem } from "../errors.js";
import { EVENT_LIMITS, findSearch, recordFeedback } from "../experiments/events.js";
import { fromD1 } from "../storage.js";

export const FeedbackBody = z
  .object({
    requestId: z.string().min(1).max(64).openapi({ description: "The search's requestId." }),
    itemId: z.string().min(1).max(256),
    type: z.enum(["click", "add_to_cart", "purchase"]),
  })
  .openapi("Feedback");

export const FeedbackAccepted = z.object({ counted: z.boolean().openapi({ description: "false: a duplicate, counted before." }) }).openapi("FeedbackAccepted");

export const feedbackRoute = createRoute({
  method: "post",
  path: "/v1/feedback",
  operationId: "feedback",
  summary: "Record a click, add-to-cart or purchase on a shown result",
  tags: ["search"],
  request: { body: { required: true, content: { "application/json": { schema: FeedbackBody } } } },
  responses: { 202: json("Recorded (or a duplicate, counted once).", FeedbackAccepted), ...problems(...DATA_ROUTE, 404) },
});

export function mountFeedback(app: ApiApp) {
  app.openapi(feedbackRoute, async (c) => {
    const { requestId, itemId, type } = c.req.valid("json");
    const db = c.env.EVENTS;
    if (!db) throw new Problem("unavailable", "Events are not stored by this deployment (no EVENTS binding).");
    const search = await fromD1("reading a search event", () => findSearch(db, requestId));
    if (!search || Date.now() - search.at > EVENT_LIMITS.feedbackWindowMs) {
      throw new Problem("notFound", "No recent search with that requestId (events are written a moment after the search: retry shortly).", {
        parameter: "requestId",
      });
    }
    const shown = search.shown.find(([id]) => id === itemId);
    if (!shown) throw new Problem("notFound", "That search did not show this item.", { parameter: "itemId" });
    // The arm and the team come from the recorded search: the client is not told them (routes/search.ts) and is never asked.
    const counted = await fromD1("recording feedback", () =>
      recordFeedback(db, { requestId, itemId, type, at: Date.now(), experimentId: search.experimentId, arm: search.arm, team: shown[2] ?? null }),
    );
    return c.json({ counted }, 202);
  });
}
