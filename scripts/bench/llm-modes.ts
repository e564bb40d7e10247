/**
 * bench:serve's LLM section: an LLM round (round 0's index, query side "an
 * LLM" falling back to round 0's extractor) served with the local
 * OpenAI-compatible TEST server (not vLLM, in its own process, so that
 * autocannon's process does not slow it) in each failure mode. Every request
 * is a query never seen before (two WANDS queries joined: known words, so
 * postings come from the warm KV, but a new normalised query, so no keyword
 * cache hides the endpoint): what is measured is the circuit breaker. The
 * baseline is the same round with no LLM configured.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import autocannon from "autocannon";
import { freePort, waitFor } from "../../tools/processes.js";
import { startDevServer } from "../dev-server.js";

export interface LlmModeRow {
  readonly mode: string;
  readonly result: autocannon.Result;
  readonly sources: string;
}

export async function benchLlmModes(port: number, stateDir: string, queries: readonly string[], connections: number, durationS: number): Promise<LlmModeRow[]> {
  const llmPort = await freePort();
  const child = spawn(join("node_modules", ".bin", "tsx"), ["scripts/llm-test-server.ts", "--port", String(llmPort)], { stdio: ["ignore", "pipe", "pipe"] });
  await waitFor(child, /TEST server/, 60_000);
  const llm = { url: `http://127.0.0.1:${llmPort}` };
  const modes: Array<[string, string]> = [
    ["no LLM (fallback only)", ""],
    ["LLM healthy (echo)", `${llm.url}/echo/v1`],
    ["LLM hanging", `${llm.url}/hang/v1`],
    ["LLM answering 500", `${llm.url}/error/v1`],
    ["LLM resetting connections", `${llm.url}/reset/v1`],
    ["LLM port closed", "http://127.0.0.1:9/v1"],
    ["LLM answering garbage", `${llm.url}/garbage/v1`],
    // The baseline again: how far the machine drifted over the run.
    ["no LLM (again, last)", ""],
  ];
  const rows: LlmModeRow[] = [];
  let n = 0;
  const pair = () => {
    const j = n++;
    return `${queries[j % queries.length]} ${queries[Math.floor(j / queries.length) % queries.length]}`;
  };
  try {
    for (const [mode, url] of modes) {
      const server = await startDevServer(port, stateDir, "ignore", { LLM_BASE_URL: url, LLM_TIMEOUT_MS: "2000" }, { benchLimits: true });
      try {
        if (url === "" && rows.length === 0) {
          // Warm-up (not measured): every WANDS query's postings into KV, as a serving round's would be.
          for (const q of queries) await (await fetch(`${server.url}/v1/search?q=${encodeURIComponent(q)}`, { headers: { "x-cogr-user": "warm-up" } })).text();
          n = queries.length; // the pairs below start after the warm-up's queries
        }
        const sources = new Map<string, number>();
        const result = await autocannon({
          url: server.url,
          connections,
          duration: durationS,
          requests: [
            {
              method: "GET",
              setupRequest: (req) => {
                const q = pair();
                return { ...req, path: `/v1/search?q=${encodeURIComponent(q)}&limit=10`, headers: { "x-cogr-user": `llm-bench-${n % connections}` } };
              },
              onResponse: (_status, body) => {
                const s = /"keywordSource":"(\w+)"/.exec(body)?.[1] ?? "?";
                sources.set(s, (sources.get(s) ?? 0) + 1);
              },
            },
          ],
        });
        rows.push({ mode, result, sources: [...sources].map(([k, v]) => `${k} ${v}`).join(", ") });
      } finally {
        server.stop();
        await server.exited;
      }
    }
  } finally {
    child.kill("SIGTERM");
  }
  return rows;
}
