/**
 * One temporary folder per training process, holding every temporary file
 * of the run: the products' text (data/product-file.ts) and the candidate
 * files (candidate-store.ts), its worker threads' too (they inherit TMPDIR,
 * set here before any starts). At 1M items that is a few gigabytes.
 *
 * Removed at exit. A process killed by a signal runs no exit hook, and a
 * handler would not help: SIGTERM's handler runs only when the event loop
 * turns, which a synchronous training phase does not do for minutes, so
 * handling it would make training deaf to Ctrl-C. Instead each run first
 * removes the folders of runs whose process is gone (the pid is in the name).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "cogr-run-";

/** Whether process `pid` exists (EPERM: it does, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the run folders under `dir` whose process has ended; returns how many. */
export function removeStaleRunRoots(dir: string = tmpdir()): number {
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const m = /^cogr-run-([0-9]+)-/.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

let root: string | null = null;

/**
 * Makes this process's run folder (once) and points TMPDIR at it, after
 * removing the folders dead runs left. Call at a CLI's start, before any
 * temporary file or worker thread is made.
 */
export function useRunTempRoot(): string {
  if (root) return root;
  const parent = tmpdir();
  removeStaleRunRoots(parent);
  const made = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
  root = made;
  process.env.TMPDIR = made;
  process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  return made;
}
