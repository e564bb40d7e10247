/** `wrangler deploy --dry-run`: the worker bundles for every environment, within Workers' size limit. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { QUIET_WRANGLER_ENV, WRANGLER_BIN } from "../../publish/node/wrangler.js";

const LIMITERS = ["RATE_LIMITER", "IP_RATE_LIMITER", "ADMIN_RATE_LIMITER"] as const;

describe("the rate limits in wrangler.toml", () => {
  it.each([[undefined], ["staging"], ["production"]])("env %s binds every limiter and sends their period as Retry-After", (environment) => {
    const config = unstable_readConfig({ config: "wrangler.toml", env: environment });
    for (const name of LIMITERS) {
      const limiter = (config.ratelimits ?? []).find((r: { name: string }) => r.name === name);
      expect(limiter?.simple.limit, name).toBeGreaterThan(0);
      expect(String(limiter?.simple.period), name).toBe((config.vars as Record<string, string>).RATE_LIMIT_PERIOD_S);
    }
    // Each binding counts in its own namespace.
    expect(new Set((config.ratelimits ?? []).map((r: { namespace_id: string }) => r.namespace_id)).size).toBe(LIMITERS.length);
  });

  it("allows local development 300 requests per user key and 1,000 per IP per 10 s", () => {
    const limits = Object.fromEntries(
      (unstable_readConfig({ config: "wrangler.toml" }).ratelimits ?? []).map((r: { name: string; simple: { limit: number } }) => [r.name, r.simple]),
    );
    expect(limits.RATE_LIMITER).toEqual({ limit: 300, period: 10 });
    expect(limits.IP_RATE_LIMITER).toEqual({ limit: 1000, period: 10 });
  });
});

describe("wrangler deploy --dry-run", () => {
  it.each([[undefined], ["staging"], ["production"]])("bundles the search worker (env %s)", (environment) => {
    const out = mkdtempSync(join(tmpdir(), "cogr-dry-"));
    const args = ["deploy", "--dry-run", "--outdir", out, ...(environment ? ["--env", environment] : [])];
    const log = execFileSync(WRANGLER_BIN, args, { env: { ...process.env, ...QUIET_WRANGLER_ENV }, encoding: "utf8" });
    expect(log).toMatch(/--dry-run: exiting now/);
    for (const binding of ["CATALOG", "SHARD_0", "SHARD_3", "CACHE", ...LIMITERS]) expect(log).toContain(binding);
    const js = readdirSync(out).filter((f) => f.endsWith(".js"));
    expect(js.length).toBeGreaterThan(0);
    const file = join(out, js[0] as string);
    expect(statSync(file).size).toBeGreaterThan(10_000);
    // Workers' free-plan limit is 3 MB compressed.
    expect(gzipSync(readFileSync(file)).length).toBeLessThan(3 * 2 ** 20);
  });
});
