/**
 * `npm run llm-test-server -- [--port 8199]`: the local OpenAI-compatible TEST
 * server (not vLLM) on a fixed port, for trying `npm run index` and the
 * worker's LLM path without a GPU. Base URLs: http://127.0.0.1:PORT/<mode>/v1
 * with the modes of test/support/openai-test-server.ts (echo, hang, error…).
 */
import { startOpenAiTestServer } from "../tools/openai-test-server.js";
import { intOption, parseCli, runCli } from "./cli.js";

runCli(async () => {
  const args = parseCli({ port: { type: "string" } }, "npm run llm-test-server -- [--port 8199]");
  const server = await startOpenAiTestServer(intOption("port", args.port, 8199, 1), { keepBodies: false });
  server.server.ref();
  console.log(`OpenAI-compatible TEST server (not vLLM) on ${server.url}: use ${server.url}/echo/v1 (or /hang/v1, /error/v1, …)`);
});
