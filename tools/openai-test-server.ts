/**
 * A local OpenAI-compatible TEST server (not vLLM): it answers
 * POST /<mode>/v1/chat/completions the way an OpenAI-compatible server would,
 * misbehaving on purpose by mode, so the worker's fallback chain can be
 * tested without a GPU. Modes:
 *   ok         keywords as a comma list
 *   json       keywords as a JSON array
 *   slow       answers after 10 s (past any latency budget)
 *   error      HTTP 500
 *   ratelimit  HTTP 429 with retry-after: 0
 *   flaky      HTTP 500 on the first request of each query, then ok (exercises the one retry)
 *   garbage    HTTP 200 with a body that is not JSON
 *   empty      a well-formed answer with no usable keyword
 *   echo       a JSON array made from the prompt itself: the words and word
 *              pairs of its "Query:" or "Product title:" line (a stand-in
 *              model whose keywords depend on the input, for `npm run index`)
 *   hang       never answers (the connection stays open)
 *   reset      closes the connection without an answer
 *   wobbly     echo, but every third answer is a truncated body and every fifth a 503
 *   switch     echo, hang or error, as last set by GET /switch?to=echo|hang|error
 * GET /requests returns the bodies received, newest last; GET /count the number.
 * `npm run llm-test-server` runs it on a fixed port for manual tries.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const TEST_LLM_KEYWORDS = ["accent chair", "armchair", "wingback chair", "club chair"];

function completion(content: string) {
  return JSON.stringify({
    id: "cmpl-test",
    object: "chat.completion",
    created: 0,
    model: "test-model",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export interface TestLlmServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** The stand-in model of mode `echo`: words and adjacent word pairs of the prompt's subject line. */
export function echoKeywords(prompt: string): string[] {
  const line = /^(?:Query|Product title): (.*)$/m.exec(prompt)?.[1] ?? "";
  const words = line
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1);
  const out = new Set<string>(words);
  for (let j = 0; j + 1 < words.length; j++) out.add(`${words[j]} ${words[j + 1]}`);
  return [...out].slice(0, 20);
}

function promptOf(body: string): string {
  try {
    const b = JSON.parse(body) as { messages?: Array<{ content?: unknown }> };
    const c = b.messages?.at(-1)?.content;
    return typeof c === "string" ? c : "";
  } catch {
    return "";
  }
}

export async function startOpenAiTestServer(port = 0, opts: { keepBodies?: boolean } = {}): Promise<TestLlmServer> {
  const keep = opts.keepBodies ?? true;
  let count = 0;
  let switched = "echo";
  const received: unknown[] = [];
  const seen = new Set<string>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname === "/switch") {
      switched = url.searchParams.get("to") ?? "echo";
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ mode: switched }));
      return;
    }
    if (req.method === "GET" && url.pathname === "/count") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ count }));
      return;
    }
    if (req.method === "GET" && url.pathname === "/requests") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(received));
      return;
    }
    const m = /^\/([a-z]+)\/v1\/chat\/completions$/.exec(url.pathname);
    if (req.method !== "POST" || !m) {
      res.writeHead(404).end();
      return;
    }
    const text = await body(req);
    count++;
    if (keep) received.push(JSON.parse(text));
    const json = { "content-type": "application/json" };
    switch (m[1] === "switch" ? switched : m[1]) {
      case "ok":
        res.writeHead(200, json).end(completion(`1. ${TEST_LLM_KEYWORDS.join(",\n- ")}`));
        return;
      case "json":
        res.writeHead(200, json).end(completion(JSON.stringify(TEST_LLM_KEYWORDS)));
        return;
      case "slow":
        setTimeout(() => res.writeHead(200, json).end(completion("late chair")), 10_000).unref();
        return;
      case "error":
        res.writeHead(500, json).end(JSON.stringify({ error: { message: "boom" } }));
        return;
      case "ratelimit":
        res.writeHead(429, { ...json, "retry-after": "0" }).end(JSON.stringify({ error: { message: "slow down" } }));
        return;
      case "flaky":
        if (!seen.has(text)) {
          seen.add(text);
          res.writeHead(500, json).end(JSON.stringify({ error: { message: "first try fails" } }));
        } else res.writeHead(200, json).end(completion(TEST_LLM_KEYWORDS.join(", ")));
        return;
      case "echo":
        res.writeHead(200, json).end(completion(JSON.stringify(echoKeywords(promptOf(text)))));
        return;
      case "hang":
        return; // never answered: the client's timeout must end it
      case "reset":
        req.socket.destroy();
        return;
      case "wobbly":
        if (count % 5 === 0) res.writeHead(503, json).end(JSON.stringify({ error: { message: "overloaded" } }));
        else if (count % 3 === 0) res.writeHead(200, json).end('{"choices": [{"message": ');
        else res.writeHead(200, json).end(completion(JSON.stringify(echoKeywords(promptOf(text)))));
        return;
      case "garbage":
        res.writeHead(200, json).end("<html>definitely not json");
        return;
      case "empty":
        res.writeHead(200, json).end(completion(" , ;; !!! \n -- "));
        return;
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  server.unref();
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections(); // "hang" keeps sockets open
        server.close(() => resolve());
      }),
  };
}
