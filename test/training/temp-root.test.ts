/** training/temp-root.ts: the folders of dead runs go, a live run's and anything else stay. */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeStaleRunRoots } from "../../training/temp-root.js";

describe("run folders", () => {
  it("removes those whose process has ended, and only those", () => {
    const dir = mkdtempSync(join(tmpdir(), "cogr-temp-root-"));
    const ended = spawnSync("true").pid as number; // exited and reaped: its pid names no process
    for (const name of [`cogr-run-${ended}-aaaaaa`, `cogr-run-${process.pid}-bbbbbb`, "cogr-products-cccccc", "cogr-run-x-dddddd", "other"]) {
      mkdirSync(join(dir, name, "inside"), { recursive: true });
    }
    expect(removeStaleRunRoots(dir)).toBe(1);
    expect(readdirSync(dir).sort()).toEqual([`cogr-run-${process.pid}-bbbbbb`, "cogr-products-cccccc", "cogr-run-x-dddddd", "other"].sort());
  });
});
