/**
 * JSON responses leave with `<`, `>` and `&` as \u escapes (they can only
 * occur inside JSON strings, so the document is unchanged), so input the API
 * echoes (a query, an id, a path) is never markup, whatever reads it.
 */
import { createMiddleware } from "hono/factory";

const MARKUP = /[<>&]/g;

export function escapeMarkup(json: string): string {
  return json.replace(MARKUP, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export const escapeJson = createMiddleware(async (c, next) => {
  await next();
  if (!(c.res.headers.get("content-type") ?? "").startsWith("application/json") || c.res.body === null) return;
  const text = await c.res.text();
  const headers = new Headers(c.res.headers);
  headers.delete("content-length");
  c.res = new Response(escapeMarkup(text), { status: c.res.status, headers });
});
