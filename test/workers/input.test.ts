/**
 * The input cases the API used to let through, each answered as a problem,
 * and the headers every response carries.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { get, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();

async function problem(res: Response) {
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  return (await res.json()) as { status: number; title: string; detail: string; parameter?: string; allow?: string[] };
}

describe("malformed input", () => {
  beforeAll(async () => {
    await publish(rounds.synthetic0);
  });

  it.each([
    ["invalid UTF-8 (a UTF-8-encoded high surrogate)", "/v1/search?q=%ED%A0%80", "q"],
    ["a lone low surrogate", "/v1/search?q=chair%ED%B0%80", "q"],
    ["a truncated sequence", "/v1/search?q=%E2%82", "q"],
    ["a stray percent sign", "/v1/search?q=100%", "q"],
    ["an invalid escape", "/v1/search?q=chair&limit=%ZZ", "limit"],
    ["a repeated q", "/v1/search?q=chair&q=table", "q"],
    ["a repeated limit", "/v1/search?q=chair&limit=5&limit=6", "limit"],
    ["a malformed parameter name", "/v1/search?q=chair&%FF=1", "%FF"],
    ["an invalid path parameter", "/v1/items/%ED%A0%80", "id"],
  ])("400 for %s, naming the parameter", async (_, path, parameter) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect((await problem(res)).parameter).toBe(parameter);
  });

  it("still decodes well-formed input: '+' and %20 are spaces, %2B is a plus, unicode is kept", async () => {
    const body = (await (await get("/v1/search?q=wood+chair%20%2B%20%C3%A9l%C3%A9gant")).json()) as { query: string };
    expect(body.query).toBe("wood chair + élégant");
  });

  it("an over-long user key is a 400 naming the header; the headers together are bounded by a 431", async () => {
    const long = await get("/v1/search?q=chair", {}, { "x-cogr-user": "u".repeat(100_000) });
    expect(long.status).toBe(431); // over the header budget first
    const res = await get("/v1/search?q=chair", {}, { "x-cogr-user": "u".repeat(200) });
    expect(res.status).toBe(400);
    expect((await problem(res)).parameter).toBe("x-cogr-user");
    const ok = await get("/v1/search?q=chair", {}, { "x-cogr-user": "u".repeat(128) });
    expect(ok.status).toBe(200);
    const big = await get("/healthz", {}, { cookie: "c".repeat(8 * 1024) });
    expect(big.status).toBe(431);
    expect((await problem(big)).title).toBe("Request header fields too large");
  });

  it("a wrong method is a 405 with Allow; HEAD and unknown routes behave", async () => {
    const post = await get("/v1/search?q=chair", {}, {}, "POST");
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await problem(post)).allow).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect((await get("/v1/items/1", {}, {}, "DELETE")).status).toBe(405);
    const head = await get("/healthz", {}, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    for (const method of ["GET", "POST"]) {
      const res = await get("/v2/nothing", {}, {}, method);
      expect(res.status).toBe(404);
      expect((await problem(res)).status).toBe(404);
    }
  });

  it("echoed input is never markup: JSON escapes <, > and &", async () => {
    const q = "<script>alert(1)</script> & chair";
    const res = await get(`/v1/search?q=${encodeURIComponent(q)}`);
    const text = await res.text();
    expect(text).not.toMatch(/[<>&]/);
    expect((JSON.parse(text) as { query: string }).query).toBe(q);
    const missing = await get(`/v1/items/${encodeURIComponent("<b>x</b>")}`);
    expect(missing.status).toBe(404);
    const body = await missing.text();
    expect(body).not.toMatch(/[<>]/);
    expect((JSON.parse(body) as { detail: string }).detail).toContain("<b>x</b>");
  });
});

describe("security headers", () => {
  it("API responses: nosniff, no referrer, and a CSP that allows nothing", async () => {
    for (const path of ["/v1/search?q=chair", "/v1/search", "/healthz", "/openapi.json"]) {
      const res = await get(path);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
    }
  });

  it("the page: a per-response nonce on its script and style, and nothing else allowed to run", async () => {
    const csps: string[] = [];
    for (let j = 0; j < 2; j++) {
      const res = await get("/");
      const csp = res.headers.get("content-security-policy") ?? "";
      csps.push(csp);
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonce).toBeTruthy();
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain(`style-src 'nonce-${nonce}'`);
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      const html = await res.text();
      expect(html).toContain(`<script nonce="${nonce}">`);
      expect(html).toContain(`<style nonce="${nonce}">`);
      expect(html.match(/<script/g)).toHaveLength(1);
    }
    expect(csps[0]).not.toBe(csps[1]);
  });
});
