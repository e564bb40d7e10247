/**
 * `npm run bench:fuzz [-- --runs 10000 --seed S --port 8798]` (needs COGR_DATA): the
 * fuzz suite at benchmark size, over real HTTP against `wrangler dev` on
 * WANDS round 0, with arbitrary method tokens too (test/support/fuzz-requests.ts;
 * `npm test` runs 3,000 of the same requests inside workerd). Requests go out
 * byte for byte as generated (node:http, no URL normalisation). It prints
 * the statuses seen and every violation: a 5xx, a 4xx that is not
 * problem+json, or input echoed as markup.
 */
import { request } from "node:http";
import fc from "fast-check";
import { type FuzzRequest, fuzzRequests, RUNTIME_UNKNOWN_METHOD, violation } from "../tools/fuzz-requests.js";
import { serveWandsRound0 } from "./bench/served-round.js";
import { intOption, parseCli, runCli } from "./cli.js";
import { assertPortFree } from "./port.js";

const BENCH = { port: 8798, runs: 10_000, seed: 20261201, concurrency: 8 } as const;
const USAGE = "npm run bench:fuzz [-- --runs 10000 --seed S --port 8798]";
/** Methods fetch-style clients refuse to send; a raw client could, but the dev proxy in front of workerd does not pass them on. */
const UNSENDABLE = new Set(["CONNECT", "TRACE", "TRACK"]);

function send(port: number, req: FuzzRequest): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: "127.0.0.1", port, method: req.method, path: req.target, headers: req.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    r.on("error", reject);
    r.end();
  });
}

runCli(async () => {
  const args = parseCli({ runs: { type: "string" }, seed: { type: "string" }, port: { type: "string" } }, USAGE);
  const runs = intOption("runs", args.runs, BENCH.runs, 1);
  const seed = intOption("seed", args.seed, BENCH.seed);
  const port = intOption("port", args.port, BENCH.port, 1);
  await assertPortFree(port);
  const served = await serveWandsRound0(port);
  try {
    const requests = fc.sample(
      fuzzRequests({ anyMethod: true }).filter((r) => !UNSENDABLE.has(r.method)),
      { numRuns: runs, seed },
    );
    const statuses = new Map<string, number>();
    const violations: string[] = [];
    const started = Date.now();
    for (let j = 0; j < requests.length; j += BENCH.concurrency) {
      const batch = requests.slice(j, j + BENCH.concurrency);
      const answers = await Promise.all(batch.map((r) => send(port, r).catch((e: Error) => ({ status: -1, type: "", body: e.message }))));
      answers.forEach((a, k) => {
        const req = batch[k] as FuzzRequest;
        // Over 16 KiB of request line and headers, wrangler dev's Node proxy answers a bare 431 before the worker sees the request (Cloudflare's edge has its own limits and answers likewise).
        const proxy431 =
          a.status === 431 && !a.type.startsWith("application/problem+json") && req.target.length + JSON.stringify(req.headers).length > 16 * 1024;
        // workerd answers a method token it does not know itself, before the worker (the worker answers every method it is handed).
        const runtime501 = a.status === RUNTIME_UNKNOWN_METHOD.status && a.body === RUNTIME_UNKNOWN_METHOD.body;
        const key = a.status === -1 ? "connection error" : proxy431 ? "431 (dev proxy, bare)" : runtime501 ? "501 (workerd: unknown method)" : String(a.status);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        const v = a.status === -1 ? `connection error: ${a.body}` : proxy431 || runtime501 ? null : violation(req, a.status, a.type, a.body);
        if (v) violations.push(`${req.method} ${req.target.slice(0, 120)} → ${v}`);
      });
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(`${requests.length} fuzzed requests over HTTP in ${seconds.toFixed(1)} s (seed ${seed})`);
    console.log(
      `statuses: ${[...statuses]
        .sort()
        .map(([s, n]) => `${s} × ${n}`)
        .join(", ")}`,
    );
    console.log(`violations: ${violations.length}`);
    for (const v of violations.slice(0, 20)) console.log(`  ${v}`);
    if (violations.length > 0) process.exitCode = 2;
  } finally {
    await served.close();
  }
});
