/**
 * Refuses malformed requests before any route sees them, on every path:
 * headers over their budget (431), a path and query over theirs (414), an
 * over-long user key (400), and query
 * strings that Hono would otherwise pass on leniently: an invalid
 * percent-encoding or invalid UTF-8 (which is also how a lone surrogate
 * arrives, e.g. %ED%A0%80) would be searched as its literal text, and a
 * repeated parameter would silently take its first value.
 */
import { createMiddleware } from "hono/factory";
import { Problem } from "../errors.js";
import { SERVING_LIMITS } from "../limits.js";

const shown = (s: string) => JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);

/** Strict application/x-www-form-urlencoded decoding of one name or value; null when malformed. */
export function strictDecode(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    return null; // URIError: a stray '%', or bytes that are not UTF-8 (surrogate code points included)
  }
}

/** Throws a 400 problem for the first malformed or repeated parameter of a raw query string (without '?'). */
export function checkQueryString(search: string): void {
  const seen = new Set<string>();
  for (const part of search.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const name = strictDecode(rawName);
    if (name === null)
      throw new Problem("invalidParameter", `parameter name ${shown(rawName)} is not valid percent-encoded UTF-8`, { parameter: rawName.slice(0, 64) });
    if (eq >= 0 && strictDecode(part.slice(eq + 1)) === null) {
      throw new Problem("invalidParameter", `${name} is not valid percent-encoded UTF-8`, { parameter: name.slice(0, 64) });
    }
    if (seen.has(name)) throw new Problem("invalidParameter", `${name} is given more than once`, { parameter: name.slice(0, 64) });
    seen.add(name);
  }
}

export const requestGuard = createMiddleware(async (c, next) => {
  let headerBytes = 0;
  c.req.raw.headers.forEach((value, name) => {
    headerBytes += name.length + value.length + 4; // "name: value\r\n"
  });
  if (headerBytes > SERVING_LIMITS.requestHeaderBytesMax) {
    throw new Problem("headersTooLarge", `The request's headers take ${headerBytes} bytes; at most ${SERVING_LIMITS.requestHeaderBytesMax} are accepted.`);
  }
  for (const name of ["x-user-id", "x-cogr-user"]) {
    const user = c.req.header(name);
    if (user !== undefined && (user.length === 0 || user.length > SERVING_LIMITS.userKeyMaxChars)) {
      throw new Problem("invalidHeader", `${name} must be 1 to ${SERVING_LIMITS.userKeyMaxChars} characters`, { parameter: name });
    }
  }
  const url = c.req.url;
  const target = url.length - new URL(url).origin.length;
  if (target > SERVING_LIMITS.urlBytesMax) {
    throw new Problem("uriTooLong", `The request's path and query take ${target} bytes; at most ${SERVING_LIMITS.urlBytesMax} are accepted.`);
  }
  const q = url.indexOf("?");
  if (q >= 0) checkQueryString(url.slice(q + 1).split("#")[0] ?? "");
  await next();
});

/**
 * For a route with path parameters (Hono pattern, e.g. /v1/items/:id): each
 * parameter's raw segment must decode strictly, or the request is a 400
 * naming the parameter (Hono would hand the route the undecoded text).
 */
export function strictPathParams(pattern: string) {
  const names = pattern.split("/").map((seg) => (seg.startsWith(":") ? seg.slice(1) : null));
  return createMiddleware(async (c, next) => {
    const segments = new URL(c.req.url).pathname.split("/");
    names.forEach((name, j) => {
      if (name !== null && strictDecode((segments[j] ?? "").replaceAll("+", "%2B")) === null) {
        throw new Problem("invalidParameter", `${name} is not valid percent-encoded UTF-8`, { parameter: name });
      }
    });
    await next();
  });
}
