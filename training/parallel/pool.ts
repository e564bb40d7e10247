/**
 * A fixed pool of `node:worker_threads` that the (synchronous) training loop
 * can call synchronously: `run` posts one message to every worker, then
 * blocks on a shared counter (Atomics.wait) until each has answered, and
 * collects the answers with receiveMessageOnPort. A worker that throws
 * answers `{ error }`, and run throws it here in one line; a worker that dies
 * without answering is noticed after `replyTimeoutMs`.
 */
import { writeSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { MessageChannel, type MessagePort, receiveMessageOnPort, threadId, Worker } from "node:worker_threads";

export const POOL_LIMITS = { maxWorkers: 64, replyTimeoutMs: 600_000, pollMs: 1_000 } as const;

export interface PoolWorkerData {
  readonly port: MessagePort;
  /** Int32Array over a SharedArrayBuffer: [0] counts answers, [1] workers that failed to load. */
  readonly done: SharedArrayBuffer;
}

/**
 * A worker's entry: the project runs TypeScript through tsx, whose loader a
 * worker thread does not inherit, so the worker registers it before importing
 * its script (tsx's own API, resolved where this module is).
 */
function bootstrap(script: URL): string {
  const load = script.pathname.endsWith(".ts")
    ? `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then(({ register }) => { register(); return import(${JSON.stringify(script.href)}); })`
    : `import(${JSON.stringify(script.href)})`;
  // A script that fails to load says so on the shared flag (the main thread may be blocked waiting, deaf to events).
  return `${load}.catch((e) => {
    const { workerData } = require("node:worker_threads");
    workerData.port.postMessage({ error: "loading " + ${JSON.stringify(script.pathname)} + ": " + (e && e.message ? e.message : String(e)) });
    const flags = new Int32Array(workerData.done);
    Atomics.add(flags, 1, 1);
    Atomics.notify(flags, 0);
  });`;
}

export class WorkerPool {
  private readonly workers: Array<{ worker: Worker; port: MessagePort; dead: Error | null }> = [];
  private readonly done = new Int32Array(new SharedArrayBuffer(8));

  constructor(script: URL, size: number, data: (w: number) => Record<string, unknown>) {
    if (!Number.isInteger(size) || size < 1 || size > POOL_LIMITS.maxWorkers) throw new RangeError(`workers must be 1–${POOL_LIMITS.maxWorkers}, got ${size}`);
    for (let w = 0; w < size; w++) {
      const { port1, port2 } = new MessageChannel();
      const workerData = { ...data(w), port: port2, done: this.done.buffer };
      const worker = new Worker(bootstrap(script), { eval: true, workerData, transferList: [port2] });
      const entry = { worker, port: port1, dead: null as Error | null };
      worker.on("error", (e) => {
        entry.dead = e;
      });
      worker.unref();
      this.workers.push(entry);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  /** Sends messages[w] to worker w and returns their answers, in worker order. */
  run<T>(messages: readonly unknown[]): T[] {
    Atomics.store(this.done, 0, 0);
    this.workers.forEach((w, j) => {
      w.port.postMessage(messages[j]);
    });
    const deadline = Date.now() + POOL_LIMITS.replyTimeoutMs;
    for (;;) {
      const n = Atomics.load(this.done, 0);
      if (n >= this.workers.length || Atomics.load(this.done, 1) > 0) break;
      if (Date.now() > deadline) throw new Error(`a training worker gave no answer in ${POOL_LIMITS.replyTimeoutMs / 1000} s`);
      Atomics.wait(this.done, 0, n, POOL_LIMITS.pollMs);
    }
    const replies = this.workers.map((w) => receiveMessageOnPort(w.port)?.message as { error?: string; result?: T } | undefined);
    const failed = replies.find((m) => m?.error !== undefined);
    if (failed) throw new Error(`a training worker failed: ${failed.error}`);
    return this.workers.map((w, j) => {
      const m = replies[j];
      if (!m) throw new Error(`a training worker answered nothing${w.dead ? `: ${w.dead.message}` : ""}`);
      if (m.error !== undefined) throw new Error(`a training worker failed: ${m.error}`);
      return m.result as T;
    });
  }

  close(): void {
    for (const w of this.workers) {
      w.port.close();
      void w.worker.terminate();
    }
  }
}

/**
 * With COGR_REPORT_RSS (bench:train), a worker reports its heap when it starts
 * and after its first answers and then every 100th: `worker-heap` lines
 * written straight to fd 2 (a worker's process.stderr goes through the main
 * thread, which the training loop rarely lets run, and is lost at terminate).
 */
function reportHeap(what: string): void {
  if (!process.env.COGR_REPORT_RSS) return;
  const h = getHeapStatistics();
  const mb = (b: number) => (b / 2 ** 20).toFixed(0);
  writeSync(2, `worker-heap thread ${threadId} ${what} at ${Date.now()} used-mb ${mb(h.used_heap_size)} total-mb ${mb(h.total_heap_size)}\n`);
}

/** The worker side: answers every message with `handle`'s result (or its error), then counts itself done. */
export function serve(data: PoolWorkerData, handle: (message: unknown) => unknown): void {
  const done = new Int32Array(data.done);
  let answered = 0;
  reportHeap("ready");
  data.port.on("message", (m: unknown) => {
    let reply: { result?: unknown; error?: string };
    try {
      reply = { result: handle(m) };
    } catch (e) {
      reply = { error: e instanceof Error ? e.message : String(e) };
    }
    data.port.postMessage(reply);
    Atomics.add(done, 0, 1);
    Atomics.notify(done, 0);
    if (++answered <= 3 || answered % 100 === 0) reportHeap(`answer ${answered}`);
  });
}
