/**
 * Batch generation for a catalogue or a query file: a bounded pool of
 * concurrent calls, outer retries with backoff for answers the client could
 * not use (malformed, empty, timeouts, 429/5xx past the client's own
 * retries), and a JSONL checkpoint appended after every finished task, so a
 * killed run resumes without repeating finished items.
 *
 * Checkpoint: a header line naming the run (model, prompts, decoding, task
 * list, by hash), then one record per finished task. A record is `ok` with
 * its keywords, or `failed` with the last error after every attempt; failed
 * tasks are tried again on resume, and the caller reports how many fell
 * back. A torn last line (a kill mid-write) is ignored; a header of another
 * run is refused.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { type GeneratedKeywords, GeneratorError, type GeneratorErrorKind } from "../../llm/client.js";

export const BATCH_DEFAULTS = { concurrency: 16, attempts: 3, backoffBaseMs: 250 } as const;
const CHECKPOINT_FORMAT = "cogr-generation-checkpoint";
const CHECKPOINT_VERSION = 1;

export interface BatchTask {
  readonly id: string;
  readonly prompt: string;
}

export interface BatchRecord {
  readonly id: string;
  readonly status: "ok" | "failed";
  readonly keywords: readonly string[];
  readonly attempts: number;
  readonly error?: string;
  readonly kind?: GeneratorErrorKind;
}

export interface BatchOptions {
  readonly checkpoint: string;
  /** What makes two runs the same run (model, prompt set, decoding…); hashed into the header. */
  readonly runKey: unknown;
  readonly concurrency?: number;
  readonly attempts?: number;
  readonly backoffBaseMs?: number;
  /** Called after every finished task (progress bars). */
  readonly onRecord?: (record: BatchRecord, finished: number, total: number) => void;
}

export interface BatchResult {
  readonly records: ReadonlyMap<string, BatchRecord>;
  /** Tasks answered from the checkpoint, not called again. */
  readonly resumed: number;
  readonly failed: number;
}

export class CheckpointError extends Error {}

const sha = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex");

function readCheckpoint(path: string, header: string): Map<string, BatchRecord> {
  const done = new Map<string, BatchRecord>();
  if (!existsSync(path)) return done;
  const lines = readFileSync(path, "utf8").split("\n");
  if (lines[0] !== header) throw new CheckpointError(`${path} belongs to another run (other model, prompts, decoding or tasks): delete it to start over`);
  for (let j = 1; j < lines.length; j++) {
    const line = lines[j] as string;
    if (line === "") continue;
    let rec: BatchRecord;
    try {
      rec = JSON.parse(line) as BatchRecord;
    } catch {
      if (j === lines.length - 1) break; // torn by a kill mid-write: that task runs again
      throw new CheckpointError(`${path}:${j + 1}: not a checkpoint record`);
    }
    done.set(rec.id, rec);
  }
  return done;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function generateBatch(
  tasks: readonly BatchTask[],
  generate: (prompt: string) => Promise<GeneratedKeywords>,
  opts: BatchOptions,
): Promise<BatchResult> {
  const attempts = opts.attempts ?? BATCH_DEFAULTS.attempts;
  const backoff = opts.backoffBaseMs ?? BATCH_DEFAULTS.backoffBaseMs;
  const header = JSON.stringify({ format: CHECKPOINT_FORMAT, version: CHECKPOINT_VERSION, run: sha(opts.runKey), tasks: sha(tasks.map((t) => t.id)) });
  const previous = readCheckpoint(opts.checkpoint, header);
  if (!existsSync(opts.checkpoint)) writeFileSync(opts.checkpoint, `${header}\n`);
  const records = new Map<string, BatchRecord>();
  const todo: BatchTask[] = [];
  for (const t of tasks) {
    const p = previous.get(t.id);
    if (p?.status === "ok") records.set(t.id, p);
    else todo.push(t);
  }
  const resumed = records.size;
  let finished = resumed;
  const finish = (rec: BatchRecord) => {
    records.set(rec.id, rec);
    appendFileSync(opts.checkpoint, `${JSON.stringify(rec)}\n`);
    opts.onRecord?.(rec, ++finished, tasks.length);
  };
  let next = 0;
  const worker = async () => {
    for (let t = todo[next++]; t !== undefined; t = todo[next++]) {
      let last: GeneratorError | null = null;
      let n = 0;
      while (n < attempts) {
        n++;
        try {
          const g = await generate(t.prompt);
          finish({ id: t.id, status: "ok", keywords: g.keywords, attempts: n });
          last = null;
          break;
        } catch (e) {
          last = e instanceof GeneratorError ? e : new GeneratorError("malformed", (e as Error).message);
          if (last.kind === "client") break; // a 4xx other than 429 will not change on retry
          if (n < attempts) await sleep(backoff * 2 ** (n - 1));
        }
      }
      if (last) finish({ id: t.id, status: "failed", keywords: [], attempts: n, error: last.message, kind: last.kind });
    }
  };
  const workers = Math.max(1, Math.min(opts.concurrency ?? BATCH_DEFAULTS.concurrency, todo.length));
  await Promise.all(Array.from({ length: workers }, worker));
  let failed = 0;
  for (const r of records.values()) if (r.status === "failed") failed++;
  return { records, resumed, failed };
}
