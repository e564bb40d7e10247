/**
 * The query-keyword boundary: the one module that talks to the LLM.
 *
 * Preference order (each response says which answered):
 *   1. "llm"    — the round's model on vLLM's OpenAI-compatible API, decoded as
 *                 App. B.2 prescribes for indexing/evaluation (T 0.7, top-p 0.8,
 *                 top-k 20), within a latency budget, with one retry;
 *   2. "policy" — the round's embedded CPU generator;
 *   3. "raw"    — no keywords: retrieval uses the normalised query alone.
 * Answers of the round's preferred source are cached in KV per (round,
 * normalised query); fallbacks are not, so a recovered LLM is used again.
 * KV failures never fail a search: a failed cache read is a miss, and a
 * generator that cannot be read from KV leaves the raw query.
 */
import OpenAI from "openai";
import { normalizeKeyword } from "../../core/normalize.js";
import { loadQueryGenerator, type QueryGenerator, type QueryGeneratorSpec, validateQueryGeneratorSpec } from "../../core/query-generator.js";
import { REWARD_LIMITS } from "../../core/reward.js";
import type { ServingManifest } from "../publish/manifest.js";
import { queryGeneratorKey } from "../publish/plan.js";
import { SERVING_LIMITS } from "./limits.js";
import { ByteLru } from "./store/lru.js";

export type KeywordSource = "llm" | "policy" | "raw";

export interface QueryKeywords {
  readonly keywords: string[];
  readonly source: KeywordSource;
}

export interface KeywordDeps {
  readonly kv: KVNamespace;
  readonly llmBaseUrl?: string | undefined;
  readonly llmApiKey?: string | undefined;
  readonly llmTimeoutMs: number;
  readonly waitUntil: (p: Promise<unknown>) => void;
}

/** App. B.2, Table 5: decoding for initialisation, evaluation and indexing. */
export const LLM_DECODING = { temperature: 0.7, top_p: 0.8, top_k: 20, max_tokens: 512 } as const;

export function keywordPrompt(query: string): string {
  return [
    "You generate search keywords for an e-commerce search engine.",
    `Query: ${query}`,
    `Write up to ${REWARD_LIMITS.kMax} keywords or short phrases that products relevant to this query would carry.`,
    "Answer with the keywords only, separated by commas.",
  ].join("\n");
}

/** The model's text → normalised, distinct keywords, at most K_max. Accepts a JSON array or a comma/line list. */
export function parseKeywords(text: string): string[] {
  let parts: unknown[] | null = null;
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    try {
      const v = JSON.parse(trimmed) as unknown;
      if (Array.isArray(v)) parts = v;
    } catch {
      parts = null;
    }
  }
  parts ??= trimmed.split(/[\n,;]+/).map((p) => p.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, ""));
  const out = new Set<string>();
  for (const p of parts) {
    if (typeof p !== "string") continue;
    const k = normalizeKeyword(p);
    if (k !== "" && k.length <= 100) out.add(k);
    if (out.size >= REWARD_LIMITS.kMax) break;
  }
  return [...out];
}

/** Per-isolate copy of the KV keyword cache (same keys, same rule: preferred sources only). */
export const keywordLru = new ByteLru<QueryKeywords>(SERVING_LIMITS.keywordLruBytes, (key, v) => (key.length + v.keywords.join(" ").length) * 2 + 64);

const generators = new Map<string, { spec: QueryGeneratorSpec; policy: QueryGenerator | null }>();

/** Test hook: forget the parsed query generators (as a fresh isolate would). */
export function clearGeneratorCache(): void {
  generators.clear();
}

async function roundGenerator(kv: KVNamespace, round: ServingManifest) {
  const key = queryGeneratorKey(round.round, round.contentHash);
  const hit = generators.get(key);
  if (hit) return hit;
  const text = await kv.get(key, "text");
  if (text === null) throw new Error(`round ${round.round}'s query generator is missing from KV`);
  const spec = validateQueryGeneratorSpec(JSON.parse(text));
  const entry = { spec, policy: loadQueryGenerator(spec) };
  if (generators.size >= SERVING_LIMITS.generatorCacheEntries) generators.delete(generators.keys().next().value as string);
  generators.set(key, entry);
  return entry;
}

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function llmKeywords(deps: KeywordDeps, model: string, query: string): Promise<string[]> {
  const budget = deps.llmTimeoutMs;
  const client = new OpenAI({
    baseURL: deps.llmBaseUrl,
    apiKey: deps.llmApiKey || "none",
    // Two attempts share the budget; the signal below caps the total, retry-after included.
    timeout: Math.max(1, Math.floor(budget / 2)),
    maxRetries: 1,
  });
  const res = await client.chat.completions.create(
    {
      model,
      messages: [{ role: "user", content: keywordPrompt(query) }],
      ...LLM_DECODING,
    } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    { signal: AbortSignal.timeout(budget) },
  );
  return parseKeywords(res.choices[0]?.message?.content ?? "");
}

export async function queryKeywords(deps: KeywordDeps, round: ServingManifest, query: string): Promise<QueryKeywords> {
  const cacheKey = `kw:${round.round}:${round.contentHash.slice(0, 16)}:${await sha256Hex(normalizeKeyword(query))}`;
  const local = keywordLru.get(cacheKey);
  if (local) return local;
  let cached: QueryKeywords | null = null;
  try {
    cached = await deps.kv.get<QueryKeywords>(cacheKey, "json");
  } catch (e) {
    console.warn("KV keyword cache read failed:", (e as Error).message);
  }
  if (cached) {
    keywordLru.set(cacheKey, cached);
    return cached;
  }
  let generator: Awaited<ReturnType<typeof roundGenerator>>;
  try {
    generator = await roundGenerator(deps.kv, round);
  } catch (e) {
    console.warn(`round ${round.round}'s query generator could not be loaded; answering from the raw query:`, (e as Error).message);
    return { keywords: [], source: "raw" };
  }
  const { spec, policy } = generator;
  const remember = (answer: QueryKeywords) => {
    keywordLru.set(cacheKey, answer);
    deps.waitUntil(
      Promise.resolve()
        .then(() => deps.kv.put(cacheKey, JSON.stringify(answer)))
        .catch((e) => console.warn("KV keyword cache write failed", e)),
    );
    return answer;
  };
  if (spec.kind === "llm" && deps.llmBaseUrl) {
    try {
      const keywords = await llmKeywords(deps, spec.model, query);
      if (keywords.length > 0) return remember({ keywords, source: "llm" });
      console.warn("LLM answer held no keywords; falling back");
    } catch (e) {
      console.warn("LLM keyword generation failed; falling back:", (e as Error).message);
    }
  }
  if (policy) {
    const answer: QueryKeywords = { keywords: policy(query).slice(0, REWARD_LIMITS.kMax), source: "policy" };
    return spec.kind === "llm" ? answer : remember(answer);
  }
  return { keywords: [], source: "raw" };
}
