/**
 * The operator's side of the limits: `npm start` refuses a short ADMIN_TOKEN
 * (from the shell, .dev.vars or .env) in one line before it builds anything,
 * and the benchmarks' own wrangler config raises the rate limits without
 * touching wrangler.toml.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { ADMIN_TOKEN_LIMITS } from "../../core/contract.js";
import { assertAdminToken, devAdminToken, dotenvValue } from "../../scripts/admin-token.js";
import { BENCH_RATE_LIMITS, writeBenchConfig } from "../../scripts/bench/wrangler-config.js";
import { runScript } from "../cli.js";

const SHORT = "x".repeat(ADMIN_TOKEN_LIMITS.minChars - 1);
const LONG = "x".repeat(ADMIN_TOKEN_LIMITS.minChars);

describe("npm start and ADMIN_TOKEN", () => {
  it("refuses a token under the floor in one line, before it builds or publishes anything", () => {
    const artifacts = mkdtempSync(join(tmpdir(), "cogr-token-art-"));
    const r = runScript("start.ts", ["--port", "1", "--state", join(artifacts, "state")], {
      ADMIN_TOKEN: SHORT,
      COGR_ARTIFACTS: artifacts,
      COGR_DATA: artifacts,
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr.trim()).toBe(
      `error: ADMIN_TOKEN (from the environment) is ${SHORT.length} characters; the admin API needs at least ${ADMIN_TOKEN_LIMITS.minChars}: ` +
        "set a longer one (e.g. `openssl rand -hex 32`), or unset it to serve without the admin API",
    );
    expect(readdirSync(artifacts)).toEqual([]);
  });

  it("reads the token wrangler dev will see: the shell's, else .dev.vars, else .env", () => {
    const dir = mkdtempSync(join(tmpdir(), "cogr-token-"));
    expect(devAdminToken({}, dir)).toBeNull();
    writeFileSync(join(dir, ".env"), `ADMIN_TOKEN=${SHORT}\n`);
    expect(devAdminToken({}, dir)).toEqual({ value: SHORT, from: ".env" });
    writeFileSync(join(dir, ".dev.vars"), `# local secrets\nLLM_BASE_URL=http://x\nADMIN_TOKEN = "${SHORT}"\n`);
    expect(devAdminToken({}, dir)).toEqual({ value: SHORT, from: ".dev.vars" });
    expect(() => assertAdminToken({}, dir)).toThrow(/^ADMIN_TOKEN \(from \.dev\.vars\) is 31 characters/);
    expect(devAdminToken({ ADMIN_TOKEN: LONG }, dir)).toEqual({ value: LONG, from: "the environment" });
    expect(() => assertAdminToken({ ADMIN_TOKEN: LONG }, dir)).not.toThrow();
    writeFileSync(join(dir, ".dev.vars"), `ADMIN_TOKEN=${LONG} # long enough\n`);
    expect(() => assertAdminToken({}, dir)).not.toThrow();
  });

  it("parses dotenv lines as wrangler's files hold them", () => {
    expect(dotenvValue("A=1\nADMIN_TOKEN='q u o'\n", "ADMIN_TOKEN")).toBe("q u o");
    expect(dotenvValue("export ADMIN_TOKEN=abc\nADMIN_TOKEN=def\n", "ADMIN_TOKEN")).toBe("def");
    expect(dotenvValue("ADMIN_TOKENX=abc\n", "ADMIN_TOKEN")).toBeUndefined();
  });
});

describe("the benchmarks' wrangler config", () => {
  it("raises every rate limit in a file of its own, and wrangler.toml stays as it is", () => {
    const dir = mkdtempSync(join(tmpdir(), "cogr-bench-config-"));
    copyFileSync("wrangler.toml", join(dir, "wrangler.toml"));
    const before = readFileSync(join(dir, "wrangler.toml"), "utf8");
    const config = writeBenchConfig(dir);
    try {
      const limits = Object.fromEntries(
        (unstable_readConfig({ config: config.path }).ratelimits ?? []).map((r: { name: string; simple: { limit: number } }) => [r.name, r.simple.limit]),
      );
      expect(limits).toEqual(BENCH_RATE_LIMITS);
      expect(readFileSync(join(dir, "wrangler.toml"), "utf8")).toBe(before);
      const defaults = Object.fromEntries(
        (unstable_readConfig({ config: join(dir, "wrangler.toml") }).ratelimits ?? []).map((r: { name: string; simple: { limit: number } }) => [
          r.name,
          r.simple.limit,
        ]),
      );
      expect(defaults).toMatchObject({ RATE_LIMITER: 300, IP_RATE_LIMITER: 1000 });
    } finally {
      config.remove();
    }
    expect(existsSync(config.path)).toBe(false);
  });

  it("refuses a limiter it has no benchmark limit for, naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), "cogr-bench-config-"));
    const toml = readFileSync("wrangler.toml", "utf8");
    writeFileSync(
      join(dir, "wrangler.toml"),
      `${toml.split("\n[env.")[0]}\n[[ratelimits]]\nname = "NEW_LIMITER"\nnamespace_id = "1999"\nsimple = { limit = 5, period = 10 }\n`,
    );
    expect(() => writeBenchConfig(dir)).toThrow(/binds NEW_LIMITER: give it a benchmark limit/);
    expect(readdirSync(dir)).toEqual(["wrangler.toml"]);
  });
});
