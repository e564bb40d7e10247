/** `wrangler deploy --dry-run`: the worker bundles for every environment, within Workers' size limit. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { QUIET_WRANGLER_ENV, WRANGLER_BIN } from "../../publish/node/wrangler.js";

describe("the rate limit in wrangler.toml", () => {
  it.each([[undefined], ["staging"], ["production"]])("env %s binds RATE_LIMITER and sends its period as Retry-After", (environment) => {
    const config = unstable_readConfig({ config: "wrangler.toml", env: environment });
    const limiter = (config.ratelimits ?? []).find((r: { name: string }) => r.name === "RATE_LIMITER");
    expect(limiter?.simple.limit).toBeGreaterThan(0);
    expect(String(limiter?.simple.period)).toBe((config.vars as Record<string, string>).RATE_LIMIT_PERIOD_S);
  });
});

describe("wrangler deploy --dry-run", () => {
  it.each([[undefined], ["staging"], ["production"]])("bundles the search worker (env %s)", (environment) => {
    const out = mkdtempSync(join(tmpdir(), "cogr-dry-"));
    const args = ["deploy", "--dry-run", "--outdir", out, ...(environment ? ["--env", environment] : [])];
    const log = execFileSync(WRANGLER_BIN, args, { env: { ...process.env, ...QUIET_WRANGLER_ENV }, encoding: "utf8" });
    expect(log).toMatch(/--dry-run: exiting now/);
    for (const binding of ["CATALOG", "SHARD_0", "SHARD_3", "CACHE", "RATE_LIMITER"]) expect(log).toContain(binding);
    const js = readdirSync(out).filter((f) => f.endsWith(".js"));
    expect(js.length).toBeGreaterThan(0);
    const file = join(out, js[0] as string);
    expect(statSync(file).size).toBeGreaterThan(10_000);
    // Workers' free-plan limit is 3 MB compressed.
    expect(gzipSync(readFileSync(file)).length).toBeLessThan(3 * 2 ** 20);
  });
});
