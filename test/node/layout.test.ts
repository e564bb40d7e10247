/**
 * The layout's rules (DESIGN.md "Layout"), checked on every source file:
 * core/ imports nothing outside itself, nothing outside test/ imports test/,
 * the worker imports nothing from the publisher (both import the serving
 * contract, core/contract.ts), no two parts import each other, no production
 * module holds a test hook that signals its own process, and no source file reaches 400 lines.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts"], { encoding: "utf8" })
  .split("\n")
  .filter((f) => f !== "" && !f.startsWith("node_modules/"));

/** The part a file belongs to: its top folder, or workers/<worker>. */
const partOf = (file: string) => {
  const [top, second] = file.split("/");
  return top === "workers" ? `workers/${second}` : file.includes("/") ? (top as string) : ".";
};

/** Every relative import of every file, resolved to a repository path. */
const edges = files.flatMap((from) =>
  [...readFileSync(from, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => ({
    from,
    to: normalize(join(dirname(from), m[1] as string)).replace(/\.js$/, ".ts"),
  })),
);

describe("the layout", () => {
  it("finds the files and their imports (the checks below are not vacuous)", () => {
    expect(files.length).toBeGreaterThan(150);
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((e) => e.from.startsWith("workers/search/") && e.to === "core/contract.ts")).toBe(true);
  });

  it("keeps core pure: it imports only core", () => {
    expect(edges.filter((e) => e.from.startsWith("core/") && !e.to.startsWith("core/"))).toEqual([]);
  });

  it("keeps test code out of everything but the tests and their config", () => {
    const outside = edges.filter((e) => e.to.startsWith("test/") && !e.from.startsWith("test/") && e.from !== "vitest.config.ts");
    expect(outside).toEqual([]);
  });

  it("keeps test hooks out of production modules: none signals its own process (the tests inject that from test/support/)", () => {
    const hooks = files.filter((f) => !f.startsWith("test/") && /process\.kill\(\s*process\.pid/.test(readFileSync(f, "utf8")));
    expect(hooks).toEqual([]);
    // The check sees the hooks where they live (it is not vacuous).
    expect(files.filter((f) => f.startsWith("test/support/") && /process\.kill\(\s*process\.pid/.test(readFileSync(f, "utf8"))).length).toBeGreaterThanOrEqual(
      4,
    );
  });

  it("keeps the worker independent of the publisher and the Node-side parts", () => {
    const bad = edges.filter((e) => e.from.startsWith("workers/") && /^(publish|training|scripts|tools)\//.test(e.to));
    expect(bad).toEqual([]);
  });

  it("has no import cycle between parts", () => {
    const graph = new Map<string, Set<string>>();
    for (const e of edges) {
      const [a, b] = [partOf(e.from), partOf(e.to)];
      if (a !== b) graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
    const reaches = (a: string, b: string, seen = new Set<string>()): boolean =>
      [...(graph.get(a) ?? [])].some((n) => {
        if (n === b) return true;
        if (seen.has(n)) return false;
        seen.add(n);
        return reaches(n, b, seen);
      });
    const cycles = [...graph.keys()].filter((p) => reaches(p, p));
    expect(cycles).toEqual([]);
  });

  it("keeps every source file under 400 lines", () => {
    const long = files
      .filter((f) => !f.startsWith("test/"))
      .map((f) => ({ f, lines: readFileSync(f, "utf8").split("\n").length }))
      .filter((x) => x.lines >= 400);
    expect(long).toEqual([]);
  });
});
