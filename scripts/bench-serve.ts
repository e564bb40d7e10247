/**
 * `npm run bench:serve` (needs COGR_DATA): the load benchmark. WANDS round 0
 * is published into fresh local state (timed) and served by `wrangler dev`;
 * then autocannon drives 64 connections for 60 s over a query mix (every
 * WANDS query, each connection its own user key, as 64 clients would), and
 * after it /healthz the same way, then the same mix under an interleaving
 * experiment (two rounds per search). It reports req/s, p50/p99, errors and
 * non-2xx, and the worker's resident memory before and after. Last, an LLM
 * round with the OpenAI-compatible TEST server in each failure mode
 * (bench/llm-modes.ts): search p50 against the no-LLM p50. Between them, the
 * newest trained round's search hints: a keyword-cache miss against a hit
 * (bench/hinted-miss.ts).
 * A benchmark, not a test: it prints figures. `--duration S` shortens it.
 */
import { randomUUID } from "node:crypto";
import autocannon from "autocannon";
import { adminClient } from "./admin-client.js";
import { benchHintedMiss } from "./bench/hinted-miss.js";
import { benchLlmModes } from "./bench/llm-modes.js";
import { serveWandsRound0, workerRssMiB } from "./bench/served-round.js";
import { printTable } from "./bench/stats.js";
import { benchSuggest } from "./bench/suggest.js";
import { intOption, parseCli, runCli } from "./cli.js";
import { assertPortFree } from "./port.js";

const BENCH = { port: 8797, connections: 64, durationS: 60, healthDurationS: 30, llmDurationS: 20 } as const;
const USAGE = "npm run bench:serve [-- --duration 60 --connections 64 --llm-duration 20 | --no-llm | --llm-only | --hints-only | --suggest-only]";

runCli(async () => {
  const args = parseCli(
    {
      duration: { type: "string" },
      connections: { type: "string" },
      "llm-duration": { type: "string" },
      "no-llm": { type: "boolean" },
      "llm-only": { type: "boolean" },
      "hints-only": { type: "boolean" },
      "suggest-only": { type: "boolean" },
    },
    USAGE,
  );
  const durationS = intOption("duration", args.duration, BENCH.durationS, 1);
  const connections = intOption("connections", args.connections, BENCH.connections, 1);
  await assertPortFree(BENCH.port);
  if (args["hints-only"]) {
    await hintsSection();
    return;
  }
  if (args["suggest-only"]) {
    const served = await serveWandsRound0(BENCH.port);
    try {
      await suggestSection(
        served.server.url,
        served.dataset.queries.map((q) => q.text),
      );
    } finally {
      await served.close();
    }
    return;
  }
  if (args["llm-only"]) {
    await llmSection(connections, intOption("llm-duration", args["llm-duration"], BENCH.llmDurationS, 1));
    return;
  }
  const token = `bench-${randomUUID()}`; // the worker refuses an ADMIN_TOKEN under 32 characters
  const served = await serveWandsRound0(BENCH.port, { twin: true, vars: { ADMIN_TOKEN: token } });
  try {
    const base = served.server.url;
    const mix = served.dataset.queries.map((q) => `/v1/search?q=${encodeURIComponent(q.text)}&limit=10`);
    const memory = { start: workerRssMiB(served.server), warm: 0, after: 0 };
    // Warm-up: generated keywords land in KV, postings in KV and the isolate's LRU.
    for (const p of mix) await (await fetch(base + p, { headers: { "x-cogr-user": "warm-up" } })).text();
    memory.warm = workerRssMiB(served.server);

    let client = 0;
    const run = (requests: string[], duration: number) =>
      autocannon({
        url: base,
        connections,
        duration,
        // One user key per connection (its own request list: autocannon bakes headers into each request):
        // the rate limit is per client, and 64 connections are 64 clients.
        setupClient: (c) => {
          const headers = { "x-cogr-user": `bench-${++client}` };
          c.setRequests(requests.map((path) => ({ method: "GET" as const, path, headers })));
        },
      });
    const search = await run(mix, durationS);
    memory.after = workerRssMiB(served.server);
    const health = await run(["/healthz"], Math.min(durationS, BENCH.healthDurationS));

    // Interleaving: every search runs two rounds' keywords, postings and ranking (round 0 against its twin, round 1).
    const admin = adminClient(base, token);
    const { experiment } = await admin.call<{ experiment: { id: string } }>("POST", "/admin/experiments", { design: "interleave", control: 0, treatment: 1 });
    const interleaved = async () =>
      (await fetch(`${base}/v1/search?q=chair`, { headers: { "x-user-id": "probe" } })).headers.get("x-cogr-arm") === "interleaved";
    // The isolate sees the change within ROUND_CACHE_TTL_MS.
    for (let j = 0; j < 80 && !(await interleaved()); j++) await new Promise((r) => setTimeout(r, 250));
    for (const p of mix) await (await fetch(base + p, { headers: { "x-user-id": "warm-up" } })).text();
    const interleavedDuration = Math.min(durationS, BENCH.healthDurationS);
    const both = await run(mix, interleavedDuration);
    await admin.call("POST", `/admin/experiments/${experiment.id}/rollback`, { reason: "benchmark over" });

    const row = (name: string, r: autocannon.Result) => ({
      endpoint: name,
      "req/s": r.requests.average.toFixed(0),
      p50: `${r.latency.p50} ms`,
      p99: `${r.latency.p99} ms`,
      requests: String(r.requests.total),
      errors: String(r.errors + r.timeouts),
      "non-2xx": String(r.non2xx),
    });
    console.log(`autocannon: ${connections} connections against wrangler dev (local D1/KV, keywords cached by a warm-up pass)\n`);
    printTable([
      row(`/v1/search, ${mix.length} WANDS queries, ${durationS} s`, search),
      row(`/healthz, ${Math.min(durationS, BENCH.healthDurationS)} s`, health),
      row(`/v1/search interleaved (2 rounds), ${interleavedDuration} s`, both),
    ]);
    console.log(`\nsearch p50 / healthz p50 = ${(search.latency.p50 / Math.max(1, health.latency.p50)).toFixed(2)} (goal ≤ 3)`);
    console.log(`interleaved search p50 / healthz p50 = ${(both.latency.p50 / Math.max(1, health.latency.p50)).toFixed(2)}`);
    console.log(
      `worker memory (workerd RSS): ${memory.start.toFixed(0)} MiB at start, ${memory.warm.toFixed(0)} MiB after the warm-up, ${memory.after.toFixed(0)} MiB after the load`,
    );
    const p = served.publish;
    console.log(
      `publish WANDS round 0 to fresh local state: ${(p.migrationsS + p.dataS).toFixed(1)} s ` +
        `(migrations ${p.migrationsS.toFixed(1)} s, data ${p.dataS.toFixed(1)} s; ${p.items} items, ${p.postings} postings)`,
    );
    await suggestSection(
      base,
      served.dataset.queries.map((q) => q.text),
    );
  } finally {
    await served.close();
  }
  await hintsSection();
  if (!args["no-llm"]) await llmSection(connections, intOption("llm-duration", args["llm-duration"], BENCH.llmDurationS, 1));
});

async function llmSection(connections: number, durationS: number): Promise<void> {
  const served = await serveWandsRound0(BENCH.port, { llmModel: "bench-llm" });
  served.server.stop();
  await served.server.exited;
  try {
    const rows = await benchLlmModes(
      BENCH.port,
      served.stateDir,
      served.dataset.queries.map((q) => q.text),
      connections,
      durationS,
    );
    const base = rows[0]?.result.latency.p50 ?? 1;
    console.log(`\nLLM round, every query new (no keyword cache), LLM_TIMEOUT_MS 2000, ${connections} connections, ${durationS} s each:\n`);
    printTable(
      rows.map((r) => ({
        "query keywords": r.mode,
        "req/s": r.result.requests.average.toFixed(0),
        p50: `${r.result.latency.p50} ms`,
        p99: `${r.result.latency.p99} ms`,
        "p50 / no-LLM p50": (r.result.latency.p50 / Math.max(1, base)).toFixed(2),
        "non-2xx": String(r.result.non2xx + r.result.errors + r.result.timeouts),
        answered: r.sources,
      })),
    );
    console.log("goal: p50 within 2× of the no-LLM p50 in every failure mode (the circuit opens after 3 failures)");
  } finally {
    await served.close();
  }
}

/** GET /v1/suggest as a user types, one request at a time: cold, warm, and /healthz beside it. */
async function suggestSection(base: string, queries: readonly string[]): Promise<void> {
  const r = await benchSuggest(base, queries);
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  console.log(
    `\n/v1/suggest, ${r.requests} typed prefixes of the WANDS queries, one request at a time (${(100 * r.answered).toFixed(0)} % with suggestions):\n`,
  );
  printTable([
    { request: "/v1/suggest, first pass (buckets from KV)", p50: ms(r.cold.p50Ms), p99: ms(r.cold.p99Ms) },
    { request: "/v1/suggest, warm (isolate cache)", p50: ms(r.warm.p50Ms), p99: ms(r.warm.p99Ms) },
    { request: "/healthz", p50: ms(r.health.p50Ms), p99: ms(r.health.p99Ms) },
  ]);
  console.log("goal: warm p50 ≤ 10 ms");
}

/** The newest trained round's hinted policy: a search whose keywords no cache holds, against one whose keywords are cached. */
async function hintsSection(): Promise<void> {
  const r = await benchHintedMiss(BENCH.port);
  if (!r) {
    console.log("\nno trained round with search hints in artifacts/ (npm run train): first-pass cost not measured");
    return;
  }
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  console.log(`\nround ${r.round}'s hinted query policy (first pass: top ${r.topK}), ${r.queries} queries, one request at a time:\n`);
  printTable([
    { search: "keyword-cache miss (first pass + policy)", p50: ms(r.miss.p50Ms), p99: ms(r.miss.p99Ms) },
    { search: "keyword-cache hit", p50: ms(r.hit.p50Ms), p99: ms(r.hit.p99Ms) },
  ]);
}
