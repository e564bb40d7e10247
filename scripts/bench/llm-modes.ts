/**
 * bench:serve's LLM section: an LLM round (round 0's index, query side "an
 * LLM" falling back to round 0's extractor) served with the local
 * OpenAI-compatible TEST server (not vLLM) in each failure mode. Every
 * request carries a query never seen before, so no keyword cache hides the
 * endpoint: what is measured is the circuit breaker. The baseline is the
 * same round with no LLM configured (the fallback answers every search).
 */
import autocannon from "autocannon";
import { startOpenAiTestServer } from "../../test/support/openai-test-server.js";
import { startDevServer } from "../dev-server.js";

export interface LlmModeRow {
  readonly mode: string;
  readonly result: autocannon.Result;
  readonly sources: string;
}

export async function benchLlmModes(port: number, stateDir: string, queries: readonly string[], connections: number, durationS: number): Promise<LlmModeRow[]> {
  const llm = await startOpenAiTestServer(0, { keepBodies: false });
  const modes: Array<[string, string]> = [
    ["no LLM (fallback only)", ""],
    ["LLM healthy (echo)", `${llm.url}/echo/v1`],
    ["LLM hanging", `${llm.url}/hang/v1`],
    ["LLM answering 500", `${llm.url}/error/v1`],
    ["LLM resetting connections", `${llm.url}/reset/v1`],
    ["LLM port closed", "http://127.0.0.1:9/v1"],
    ["LLM answering garbage", `${llm.url}/garbage/v1`],
  ];
  const rows: LlmModeRow[] = [];
  let n = 0;
  try {
    for (const [mode, url] of modes) {
      const server = await startDevServer(port, stateDir, "ignore", { LLM_BASE_URL: url, LLM_TIMEOUT_MS: "2000" });
      try {
        const sources = new Map<string, number>();
        const result = await autocannon({
          url: server.url,
          connections,
          duration: durationS,
          requests: [
            {
              method: "GET",
              setupRequest: (req) => {
                const q = `${queries[n % queries.length]} ${mode.length}-${n++}`;
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
    await llm.close();
  }
  return rows;
}
