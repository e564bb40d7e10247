/**
 * The storage boundary's failures, in one place: a D1 error inside a request
 * becomes a 503 problem (with Retry-After), never a 500 that shows internals.
 * An unmigrated database ("no such table") is its own problem, since the fix
 * is a publish, not a retry.
 */
import { Problem } from "./errors.js";

export function storageProblem(what: string, e: unknown): Problem {
  if (e instanceof Problem) return e;
  // drizzle wraps D1's error ("Failed query: …") and keeps it as the cause.
  const messages: string[] = [];
  for (let x: unknown = e, depth = 0; x !== undefined && depth < 5; x = (x as { cause?: unknown })?.cause, depth++) {
    messages.push(x instanceof Error ? x.message : String(x));
  }
  const message = messages.join(" ← ");
  console.error(`${what} failed:`, message);
  if (/no such table/i.test(message)) {
    return new Problem("notReady", "Storage is not migrated yet: `npm run publish` (or `npm start`) applies the migrations.");
  }
  return new Problem("unavailable", "The index storage did not answer; try again shortly.");
}

/** Runs one D1 read; any failure becomes the problem above. */
export async function fromD1<T>(what: string, read: () => PromiseLike<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    throw storageProblem(what, e);
  }
}
