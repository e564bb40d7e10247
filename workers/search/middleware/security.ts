/**
 * Security headers (Hono's secureHeaders): nosniff, Referrer-Policy,
 * frame and opener isolation everywhere; a Content-Security-Policy that
 * allows the pages only its own nonce'd inline script and style and
 * requests to this origin, and allows API responses nothing at all.
 */
import type { MiddlewareHandler } from "hono";
import { NONCE, secureHeaders } from "hono/secure-headers";

const common = {
  referrerPolicy: "no-referrer",
  xContentTypeOptions: "nosniff",
  xFrameOptions: "DENY",
  // The API is CORS-open for GET: other origins may read it.
  crossOriginResourcePolicy: "cross-origin",
} as const;

const page = secureHeaders({
  ...common,
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: [NONCE],
    styleSrc: [NONCE],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
});

const api = secureHeaders({ ...common, contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } });

/** Paths that serve HTML pages (they get the page policy): the workbench's search, compare, query-set, item and experiment pages. */
export const PAGE_PATHS: ReadonlySet<string> = new Set(["/", "/compare", "/queries", "/experiments"]);
export const isPagePath = (path: string) => PAGE_PATHS.has(path) || /^\/(items|experiments)\/[^/]+$/.test(path);

export const security: MiddlewareHandler = (c, next) => (isPagePath(c.req.path) ? page(c, next) : api(c, next));
