/**
 * One temporary folder per training process, holding every temporary file
 * of the run: the products' text (data/product-file.ts) and the candidate
 * files (candidate-store.ts), its worker threads' too (they inherit TMPDIR,
 * set here before any starts). At 1M items that is a few gigabytes.
 *
 * Removed at exit. A process killed by a signal runs no exit hook, and a
 * handler would not help: it runs only when the event loop turns, which a
 * synchronous training phase does not do for minutes, so handling SIGTERM
 * or SIGINT would leave training deaf to them (and to Ctrl-C). Instead each
 * run first removes the folders of runs whose process is gone: those named
 * with this host, owned by this user, whose PID no longer exists.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";

/** The host in a folder's name: a run on another host sharing TMPDIR is never judged by this host's PIDs. */
const HOST = hostname().replace(/[^A-Za-z0-9.]/g, "_");

/** Whether process `pid` exists (EPERM: it does, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the run folders under `dir` that this host's ended processes left, if this user owns them; returns how many. */
export function removeStaleRunRoots(dir: string = tmpdir()): number {
  const uid = process.getuid?.();
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const m = /^cogr-run-([0-9]+)@(.+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!m || m[2] !== HOST || alive(Number(m[1]))) continue;
    const path = join(dir, name);
    try {
      if (uid !== undefined && statSync(path).uid !== uid) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Gone meanwhile, or not ours to remove: it is not this run's to clean.
    }
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
  const made = mkdtempSync(join(parent, `cogr-run-${process.pid}@${HOST}-`));
  root = made;
  process.env.TMPDIR = made;
  process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  return made;
}
