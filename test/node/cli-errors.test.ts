/**
 * CLI failures as a user meets them: one line (plus the usage for usage
 * errors) and a non-zero exit, before anything is built or published.
 */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScript } from "../cli.js";
import { writeSyntheticWands } from "../fixtures.js";

describe("CLI errors", () => {
  it("an option value that starts with a dash: one line, then the usage", () => {
    const r = runScript("build-round.ts", ["--round", "-1"]);
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^error: Option '--round' argument is ambiguous\..*'--round=-XYZ'/);
    expect(lines[1]).toMatch(/^usage: npm run build-round/);
    const negative = runScript("build-round.ts", ["--round=-1"]);
    expect(negative.status).toBe(1);
    expect(negative.stderr.trim().split("\n")).toEqual([
      'error: --round must be an integer ≥ 0, got "-1"',
      expect.stringMatching(/^usage: npm run build-round/),
    ]);
  });

  it("a value that is not a number: one line, then the usage (as the README promises)", () => {
    const r = runScript("build-round.ts", ["--round", "abc"]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      'error: --round must be an integer ≥ 0, got "abc"',
      expect.stringMatching(/^usage: npm run build-round -- --round 0/),
    ]);
  });

  it("npm start on a port that is taken refuses at once, naming the port and --port, and builds nothing", async () => {
    // Another server that even answers /healthz: npm start must not take it for its own.
    const other = createHttpServer((_, res) => res.end('{"status":"ok"}'));
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
    const port = (other.address() as { port: number }).port;
    try {
      const synth = writeSyntheticWands(40);
      const artifacts = mkdtempSync(join(tmpdir(), "cogr-port-art-"));
      const r = runScript("start.ts", ["--port", String(port), "--state", join(artifacts, "state")], { COGR_DATA: synth.dir, COGR_ARTIFACTS: artifacts });
      expect(r.status).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim()).toBe(`error: port ${port} on 127.0.0.1 is already in use: stop what holds it, or choose another with --port N`);
      expect(readdirSync(artifacts)).toEqual([]); // no round built, no state written
    } finally {
      await new Promise((r) => other.close(r));
    }
  });

  it("npm run labels into a --state that does not exist refuses in one line, and creates nothing", () => {
    const missing = join(mkdtempSync(join(tmpdir(), "cogr-labels-")), "no", "such", "dir");
    const synth = writeSyntheticWands(20);
    const r = runScript("labels.ts", ["--state", missing], { COGR_DATA: synth.dir });
    expect([r.status, r.stdout]).toEqual([1, ""]);
    expect(r.stderr.trim()).toBe(`error: --state ${missing} does not exist: name the state npm start serves (npm start -- --state DIR creates one)`);
    expect(existsSync(join(missing, "..", ".."))).toBe(false);
  });

  it("npm run data without network leaves nothing behind", () => {
    const root = mkdtempSync(join(tmpdir(), "cogr-data-"));
    const dir = join(root, "data", "wands");
    // Port 9 (discard) on loopback: nothing listens, so the download fails at once, as offline.
    const r = runScript("data.ts", [], { COGR_DATA: dir, COGR_WANDS_URL: "http://127.0.0.1:9/" });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: could not download WANDS \(.*\); connect to the internet, or set COGR_DATA/);
    expect(existsSync(join(root, "data"))).toBe(false);
  });
});
