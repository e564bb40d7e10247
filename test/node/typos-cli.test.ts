/** `npm run typos`: a seeded misspelled copy of a query file that `npm run eval` reads with the same labels. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { boundedDistance } from "../../core/edit-distance.js";
import { keywordWords } from "../../core/normalize.js";
import { runScript } from "../cli.js";
import { cliWorkspace } from "../fixtures.js";

const rows = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.split("\t"));

describe("npm run typos", () => {
  const ws = cliWorkspace(80, "typos");

  it("writes one typo in one word of each query, ids and classes kept, the same for a seed; eval reads it", () => {
    const out = join(ws.artifacts, "typos.csv");
    const r = runScript("typos.ts", ["--queries", join(ws.synth.dir, "query.csv"), "--out", out, "--seed", "5"], ws.env);
    expect(r.status, r.stderr).toBe(0);
    const clean = rows(join(ws.synth.dir, "query.csv"));
    const typo = rows(out);
    expect(typo.map(([id, , cls]) => [id, cls])).toEqual(clean.map(([id, , cls]) => [id, cls]));
    let changed = 0;
    typo.forEach(([, text], j) => {
      const a = keywordWords(text as string);
      const b = keywordWords((clean[j] as string[])[1] as string);
      expect(a.length).toBe(b.length);
      const differing = a.flatMap((w, k) => (w === b[k] ? [] : [[w, b[k] as string]]));
      if (b.some((w) => w.length >= 4)) {
        expect(differing).toHaveLength(1);
        const [w, orig] = differing[0] as [string, string];
        expect(boundedDistance(w, orig, 1)).toBe(1);
        changed++;
      } else expect(differing).toHaveLength(0);
    });
    expect(changed).toBeGreaterThan(20);
    const again = join(ws.artifacts, "again.csv");
    expect(runScript("typos.ts", ["--queries", join(ws.synth.dir, "query.csv"), "--out", again, "--seed", "5"], ws.env).status).toBe(0);
    expect(readFileSync(again, "utf8")).toBe(readFileSync(out, "utf8"));

    expect(runScript("build-round.ts", ["--round", "0"], ws.env).status).toBe(0);
    const ev = runScript("eval.ts", ["--method", "keywords", "--queries", out, "--labels", join(ws.synth.dir, "label.csv"), "--json"], ws.env);
    expect(ev.status, ev.stderr).toBe(0);
    const m = JSON.parse(ev.stdout.trim().split("\n").at(-1) as string) as { f1: number; queries: number };
    expect(m.queries).toBeGreaterThan(20);
    expect(m.f1).toBeGreaterThan(0.3);
  });

  it("refuses bad options in one line", () => {
    const r = runScript("typos.ts", ["--queries", join(ws.synth.dir, "query.csv")], ws.env);
    expect(r.status).not.toBe(0);
    expect(r.stderr.split("\n")[0]).toMatch(/--queries and --out are required/);
    const s = runScript("typos.ts", ["--queries", join(ws.synth.dir, "query.csv"), "--out", "/tmp/x.csv", "--split", "dev"], ws.env);
    expect(s.stderr.split("\n")[0]).toMatch(/--round and --split go together/);
    const missing = runScript("typos.ts", ["--queries", join(ws.synth.dir, "nope.csv"), "--out", "/tmp/x.csv"], ws.env);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
  });
});
