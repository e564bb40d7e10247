/** training/temp-root.ts: the folders this host's dead runs left go; a live run's, another host's and anything else stay. */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeStaleRunRoots } from "../../training/temp-root.js";

describe("run folders", () => {
  it("removes those whose process has ended on this host, and only those", () => {
    const dir = mkdtempSync(join(tmpdir(), "cogr-temp-root-"));
    try {
      const host = hostname().replace(/[^A-Za-z0-9.]/g, "_");
      const ended = spawnSync("true").pid as number; // exited and reaped: its pid names no process
      const kept = [
        `cogr-run-${process.pid}@${host}-bbbbbb`,
        `cogr-run-${ended}@another.host-cccccc`,
        "cogr-products-dddddd",
        `cogr-run-x@${host}-eeeeee`,
        "other",
      ];
      for (const name of [`cogr-run-${ended}@${host}-aaaaaa`, ...kept]) mkdirSync(join(dir, name, "inside"), { recursive: true });
      expect(removeStaleRunRoots(dir)).toBe(1);
      expect(readdirSync(dir).sort()).toEqual(kept.sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
