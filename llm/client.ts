/**
 * The generator client: the one place that talks to a model. Training
 * (SFT checks, reward spot checks), indexing (`npm run index`) and serving
 * (workers/search/keywords.ts) all call a model through `KeywordClient`, over
 * vLLM's OpenAI-compatible chat API with the `openai` package, which runs
 * unchanged in workerd and Node.
 *
 * One call = one chat completion with explicit decoding (Table 5; vLLM would
 * otherwise apply the model's generation_config), parsed by core's parser.
 * Retries with exponential backoff on 429/5xx, connection errors and
 * timeouts are the openai client's (it honours Retry-After); a hard deadline
 * caps the total. Failures come back as a `GeneratorError` with a kind, so
 * callers can decide what to count, retry or fall back from.
 */
import OpenAI from "openai";
import { parseKeywords } from "../core/keyword-answer.js";
import type { Decoding } from "../core/prompts.js";

export type GeneratorErrorKind = "timeout" | "rate-limited" | "server" | "client" | "network" | "malformed" | "empty";

export class GeneratorError extends Error {
  constructor(
    readonly kind: GeneratorErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface KeywordClientOptions {
  /** The OpenAI-compatible base URL, e.g. http://host:8000/v1. */
  readonly baseUrl: string;
  readonly apiKey?: string | undefined;
  readonly model: string;
  readonly decoding: Decoding;
  /** Per attempt. */
  readonly timeoutMs: number;
  /** Retries after the first attempt (backoff by the openai client). */
  readonly maxRetries: number;
  /** Total deadline over all attempts; defaults to timeoutMs × (maxRetries + 1). */
  readonly deadlineMs?: number;
}

export interface GeneratedKeywords {
  readonly keywords: string[];
  /** The model's raw text, for logs and checkpoints. */
  readonly text: string;
}

function classify(e: unknown): GeneratorError {
  if (e instanceof GeneratorError) return e;
  if (e instanceof OpenAI.APIConnectionTimeoutError) return new GeneratorError("timeout", "the model did not answer in time");
  if (e instanceof OpenAI.APIUserAbortError || (e as Error)?.name === "AbortError" || (e as Error)?.name === "TimeoutError") {
    return new GeneratorError("timeout", "the model did not answer before the deadline");
  }
  if (e instanceof OpenAI.APIError && typeof e.status === "number") {
    if (e.status === 429) return new GeneratorError("rate-limited", `the model server answered 429: ${e.message}`);
    if (e.status >= 500) return new GeneratorError("server", `the model server answered ${e.status}: ${e.message}`);
    return new GeneratorError("client", `the model server answered ${e.status}: ${e.message}`);
  }
  if (e instanceof OpenAI.APIConnectionError) return new GeneratorError("network", `cannot reach the model server: ${e.message}`);
  // A 200 whose body is not a chat completion (the openai client throws while parsing it).
  return new GeneratorError("malformed", `unreadable answer from the model server: ${(e as Error)?.message ?? String(e)}`);
}

export class KeywordClient {
  private readonly client: OpenAI;

  constructor(readonly options: KeywordClientOptions) {
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey || "none",
      timeout: Math.max(1, options.timeoutMs),
      maxRetries: options.maxRetries,
    });
  }

  /** One prompt → keywords (capped at `limit`, K_max by default). Throws GeneratorError. */
  async generate(prompt: string, limit?: number): Promise<GeneratedKeywords> {
    const { model, decoding, timeoutMs, maxRetries } = this.options;
    const deadline = this.options.deadlineMs ?? timeoutMs * (maxRetries + 1);
    let text: string;
    try {
      const res = await this.client.chat.completions.create(
        // top_k and min_p are vLLM extras: the openai client sends unknown fields as they are.
        { model, messages: [{ role: "user", content: prompt }], ...decoding } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
        { signal: AbortSignal.timeout(Math.max(1, deadline)) },
      );
      const content = res?.choices?.[0]?.message?.content;
      if (typeof content !== "string") throw new GeneratorError("malformed", "the answer holds no message content");
      text = content;
    } catch (e) {
      throw classify(e);
    }
    const keywords = parseKeywords(text, limit);
    if (keywords.length === 0) throw new GeneratorError("empty", `the answer holds no keyword: ${JSON.stringify(text.slice(0, 80))}`);
    return { keywords, text };
  }
}
