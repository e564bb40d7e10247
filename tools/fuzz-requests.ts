/**
 * Generated HTTP requests for the API's fuzz suites (the workerd test and
 * `npm run bench:fuzz`): unicode, control characters and NUL, lone
 * surrogates and invalid percent-encodings, huge and repeated parameters,
 * odd paths and methods, big headers and cookies. Pure fast-check: it runs
 * in workerd and in Node alike.
 */
import fc from "fast-check";

export interface FuzzRequest {
  readonly method: string;
  /** Path and query, percent-encoded as a client put them on the wire (possibly malformed). */
  readonly target: string;
  readonly headers: Record<string, string>;
  /** The decoded text the request carries, to check nothing of it comes back as markup. */
  readonly inputs: readonly string[];
}

type Pair = readonly [name: string, value: { readonly raw: string; readonly decoded: string }];

const hex = (b: number) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`;

/** Percent-encodes every UTF-16 code unit, lone surrogates too (as the 3-byte CESU form no UTF-8 decoder accepts). */
export function rawEncode(s: string): string {
  let out = "";
  for (let j = 0; j < s.length; j++) {
    const c = s.charCodeAt(j);
    const pair = c >= 0xd800 && c <= 0xdbff && j + 1 < s.length && (s.charCodeAt(j + 1) & 0xfc00) === 0xdc00;
    if (pair) {
      out += encodeURIComponent(s.slice(j, j + 2));
      j++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += hex(0xe0 | (c >> 12)) + hex(0x80 | ((c >> 6) & 0x3f)) + hex(0x80 | (c & 0x3f));
    } else {
      out += encodeURIComponent(s[j] as string);
    }
  }
  return out;
}

const codeUnits = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c));

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: codeUnits(0, 31), maxLength: 10 }), // control characters and NUL
  fc.string({ unit: codeUnits(0xd800, 0xdfff), minLength: 1, maxLength: 3 }), // lone surrogates
  fc.constantFrom("<script>alert(1)</script>", "<img src=x onerror=alert(1)>", '"><svg onload=alert(1)>', "chair", "wood table", "ÉLAN", "🛋️ sofa", "a&b"),
  fc.integer({ min: 250, max: 20_000 }).map((n) => "a".repeat(n)), // huge
);

/** An encoded value: well-formed from `text`, or one of the malformed encodings. */
const encoded = fc.oneof(
  { weight: 4, arbitrary: text.map((t) => ({ raw: rawEncode(t), decoded: t })) },
  { weight: 1, arbitrary: fc.constantFrom("%", "%Z", "%E2%82", "%C0%AF", "%FF", "%ED%A0%80", "%%", "+", "%00", "%0D%0A").map((raw) => ({ raw, decoded: "" })) },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 10_000_000_000 }).map((n) => ({ raw: String(n), decoded: String(n) })) },
);

const paramName = fc.oneof(
  fc.constantFrom("q", "limit", "offset", "explain", "x"),
  encoded.map((e) => e.raw),
);

const path = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("/v1/search", "/v1/search", "/v1/suggest", "/v1/items/1", "/v1/rounds", "/healthz", "/") },
  fc.constantFrom(
    "/",
    "/v1/search",
    "/v1/suggest",
    "/v1/items/1",
    "/v1/rounds",
    "/healthz",
    "/readyz",
    "/openapi.json",
    "/v1/",
    "/v1/search/",
    "//v1//search",
    "/v1/items/",
    "/../etc/passwd",
    "/v1/items/%2e%2e",
  ),
  encoded.map((e) => ({ raw: `/v1/items/${e.raw.slice(0, 4000)}`, decoded: e.decoded })).map((p) => p.raw),
  fc.array(encoded, { minLength: 1, maxLength: 4 }).map((segs) => `/${segs.map((s) => s.raw.slice(0, 2000)).join("/")}`),
);

const STANDARD_METHODS = ["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] as const;
/** Methods workerd's HTTP server recognises beyond the standard ones (WebDAV and friends): they reach the worker. */
const EXTENSION_METHODS = [
  "PROPFIND",
  "PROPPATCH",
  "MKCOL",
  "COPY",
  "MOVE",
  "LOCK",
  "UNLOCK",
  "PURGE",
  "REPORT",
  "SEARCH",
  "ACL",
  "NOTIFY",
  "SUBSCRIBE",
  "UNSUBSCRIBE",
  "TRACE",
] as const;
/** workerd's own answer to a method token it does not recognise, before any worker runs (RFC 9110 §15.6.2). */
export const RUNTIME_UNKNOWN_METHOD = { status: 501, body: "ERROR: Unrecognized request method." } as const;

/** A header value a client can send: latin-1 without CR, LF or NUL. */
const headerValue = fc.oneof(
  { weight: 12, arbitrary: fc.string({ unit: codeUnits(0x20, 0x7e), maxLength: 200 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 40_000 }).map((n) => "h".repeat(n)) },
);

const headers = fc.record(
  {
    "x-cogr-user": headerValue,
    cookie: fc.oneof(
      { weight: 6, arbitrary: headerValue },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }).map((n) => Array.from({ length: n }, (_, j) => `c${j}=${"v".repeat(50)}`).join("; ")) },
    ),
    "x-fuzz": headerValue,
    "accept-language": headerValue,
  },
  { requiredKeys: [] },
);

/**
 * Requests to fuzz with. `anyMethod` adds extension methods and arbitrary
 * method tokens, which only an HTTP client can send (workerd's Request
 * refuses non-standard ones).
 */
export function fuzzRequests(opts: { anyMethod: boolean }): fc.Arbitrary<FuzzRequest> {
  const method = opts.anyMethod
    ? fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...STANDARD_METHODS) },
        { weight: 2, arbitrary: fc.constantFrom(...EXTENSION_METHODS) },
        { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,12}$/) },
      )
    : fc.constantFrom(...STANDARD_METHODS);
  return fc
    .record({
      method,
      path,
      // Half the time a plausible search (q first), so the generator reaches the search path itself, not only its guards.
      params: fc.oneof<fc.Arbitrary<Pair[]>[]>(
        fc.array(fc.tuple(paramName, encoded), { maxLength: 6 }),
        fc
          .tuple(text, fc.array(fc.tuple(paramName, encoded), { maxLength: 2 }))
          .map(([q, rest]): Pair[] => [["q", { raw: rawEncode(q), decoded: q }], ...rest]),
      ),
      repeat: fc.boolean(),
      headers,
    })
    .map(({ method, path, params, repeat, headers }) => {
      const pairs = repeat && params[0] ? [...params, params[0]] : params; // repeated parameters
      const query = pairs.map(([n, v]) => `${n}=${v.raw}`).join("&");
      return {
        method,
        target: query ? `${path}?${query}` : path,
        headers,
        inputs: [...pairs.map(([, v]) => v.decoded), ...Object.values(headers)].filter((s) => s.length > 0),
      };
    });
}

/** What every answer must satisfy; returns the first violation, or null. */
export function violation(req: FuzzRequest, status: number, contentType: string, body: string): string | null {
  if (status >= 500) return `${status} for ${req.method} ${req.target.slice(0, 200)}`;
  if (status >= 400 && req.method !== "HEAD") {
    if (contentType !== "application/problem+json") return `${status} as ${contentType}`;
    const p = JSON.parse(body) as { status?: unknown; title?: unknown; type?: unknown };
    if (p.status !== status || typeof p.title !== "string" || typeof p.type !== "string") return `malformed problem ${body.slice(0, 200)}`;
  }
  if (!contentType.startsWith("text/html") && /[<>]/.test(body)) return `markup in a ${contentType} body: ${body.slice(0, 200)}`;
  if (contentType.startsWith("text/html")) {
    const echoed = req.inputs.find((i) => /[<>]/.test(i) && body.includes(i));
    if (echoed) return `the page echoed ${echoed.slice(0, 80)}`;
  }
  return null;
}
