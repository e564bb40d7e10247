/**
 * The query-keyword boundary: what a search's keywords come from.
 *
 * Preference order (each response says which answered):
 *   1. "llm"    — the round's model on vLLM's OpenAI-compatible API, through
 *                 llm/client.ts, with the round's prompt and decoding (Table 5),
 *                 within a latency budget, with one retry, behind a circuit
 *                 breaker (llm-breaker.ts);
 *   2. "policy" — the round's embedded CPU generator (a hinted lexical policy
 *                 first ranks the round by plain BM25 and reads its top items'
 *                 keywords: core/hints.ts, pipeline.ts firstPassHints);
 *   3. "raw"    — no keywords: retrieval uses the normalised query alone.
 *
 * Caching, per (round, normalised query), in the isolate and in KV:
 *   - answers of the round's preferred source are kept (`kw:` keys) for
 *     `keywordCacheTtlS` (KEYWORD_CACHE_TTL_S, default a week): every
 *     distinct query writes one, so without an expiry KV would grow with
 *     whatever queries clients invent;
 *   - an LLM round's fallback answers after a failed call are kept for
 *     FALLBACK_CACHE only (`kwf:` keys), so a hot query does not call a dead
 *     endpoint on every request, and a recovered LLM is used again within a
 *     minute; while the circuit is open nothing is called or cached.
 * KV failures never fail a search: a failed cache read is a miss, and a
 * generator that cannot be read from KV leaves the raw query.
 */

import type { ServingManifest } from "../../core/contract.js";
import { keywordCacheKeyOf, queryGeneratorKey, sha256Hex } from "../../core/contract.js";
import type { SearchHints } from "../../core/hints.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { queryPrompt } from "../../core/prompts.js";
import {
  extractorOf,
  firstPassOf,
  loadHintedGenerator,
  loadQueryCorrector,
  loadQueryGenerator,
  policyOf,
  type QueryGeneratorSpec,
  validateQueryGeneratorSpec,
} from "../../core/query-generator.js";
import { REWARD_LIMITS } from "../../core/reward.js";
import { KeywordClient } from "../../llm/client.js";
import { SERVING_LIMITS } from "./limits.js";
import { breakerFor, type CircuitBreaker } from "./llm-breaker.js";
import { tailedPolicy } from "./policy-tail.js";
import { tailedExtractor } from "./query-df.js";
import { ByteLru } from "./store/lru.js";

export type KeywordSource = "llm" | "policy" | "raw";

export interface QueryKeywords {
  readonly keywords: string[];
  readonly source: KeywordSource;
  /** The query as the CPU generator read it after spelling correction (core/typos.ts); null when no word changed. */
  readonly corrected: string | null;
}

export interface KeywordDeps {
  readonly kv: KVNamespace;
  readonly llmBaseUrl?: string | undefined;
  readonly llmApiKey?: string | undefined;
  readonly llmTimeoutMs: number;
  /** How long a `kw:` answer lives in KV, in seconds (≥ KV's 60). */
  readonly keywordCacheTtlS: number;
  /** The circuit breaker's cool-down (llm-breaker.ts). */
  readonly llmCoolDownMs?: number;
  readonly waitUntil: (p: Promise<unknown>) => void;
  /** A hinted policy's first pass over the served round (pipeline.ts firstPassHints), run on a keyword-cache miss only. */
  readonly firstPass: (round: ServingManifest, query: string, topK: number) => Promise<SearchHints>;
}

/** How long a fallback answer stands in for an LLM round's model (KV's shortest expiration is 60 s). */
export const FALLBACK_CACHE = { isolateTtlMs: 30_000, kvTtlS: 60 } as const;

/** The KV key of a round's cached query keywords (`npm run publish` warms it from a round's precomputed keywords). */
export async function keywordCacheKey(round: number, contentHash: string, query: string): Promise<string> {
  return keywordCacheKeyOf(round, contentHash, await sha256Hex(normalizeKeyword(query)));
}

type Cached = QueryKeywords & { readonly expiresAtMs?: number };

/** Per-isolate copy of the KV keyword caches (same keys, same rules). */
export const keywordLru = new ByteLru<Cached>(SERVING_LIMITS.keywordLruBytes, (key, v) => (key.length + v.keywords.join(" ").length) * 2 + 64);

const generators = new Map<string, { spec: QueryGeneratorSpec; policy: CpuGenerator | null; correct: (query: string) => Promise<string | null> }>();

/**
 * A CPU generator as the worker runs it: a large round's extractor looks up
 * its df tail in KV (query-df.ts); a hinted policy runs its first pass over
 * the round first (core/hints.ts). The request's deps come per call: the
 * generator is cached per isolate, the deps are per request. It reports the
 * spelling correction it applied (core/typos.ts), `verbatim` turns it off.
 */
type CpuGenerator = (query: string, deps: KeywordDeps, verbatim: boolean) => Promise<Generated> | Generated;
/** `partial`: a KV read of the generator's tail failed, so the answer is the head's alone and is not cached. */
export type Generated = { readonly keywords: string[]; readonly corrected: string | null; readonly partial?: boolean };

function cpuGenerator(spec: QueryGeneratorSpec, kv: KVNamespace, round: ServingManifest): CpuGenerator | null {
  const extractor = extractorOf(spec);
  const tailed = extractor && tailedExtractor(extractor, kv, round);
  if (tailed) return (query, _deps, verbatim) => tailed(query, verbatim);
  const policy = policyOf(spec);
  const pass = firstPassOf(spec);
  // A large round's policy reads its vocabulary's tail from KV, beside its first pass.
  const tailedP = policy && tailedPolicy(policy, kv, round);
  if (tailedP) {
    return async (query, deps, verbatim) => {
      const [hints, { tail, partial }] = await Promise.all([pass ? deps.firstPass(round, query, pass.topK) : undefined, tailedP.fetch(query, verbatim)]);
      return { ...tailedP.answer(query, hints, verbatim, tail), ...(partial ? { partial } : {}) };
    };
  }
  const correct = loadQueryCorrector(spec);
  const corrected = (query: string, verbatim: boolean) => correct(query, { verbatim })?.text ?? null;
  if (policy && pass) {
    const generate = loadHintedGenerator(policy);
    return async (query, deps, verbatim) => ({
      keywords: generate(query, await deps.firstPass(round, query, pass.topK), { verbatim }),
      corrected: corrected(query, verbatim),
    });
  }
  const generate = loadQueryGenerator(spec);
  return generate && ((query, _deps, verbatim) => ({ keywords: generate(query, { verbatim }), corrected: corrected(query, verbatim) }));
}

/**
 * The correction a round's CPU generator applies to a query, for answers
 * warmed at publish: a generator with a tail in KV reads the query's entries
 * first, as its answer did.
 */
function roundCorrector(spec: QueryGeneratorSpec, kv: KVNamespace, round: ServingManifest): (query: string) => Promise<string | null> {
  const extractor = extractorOf(spec);
  const tailedX = extractor && tailedExtractor(extractor, kv, round);
  if (tailedX) return async (query) => (await tailedX(query, false)).corrected;
  const policy = policyOf(spec);
  const tailedP = policy && tailedPolicy(policy, kv, round);
  if (tailedP) return async (query) => tailedP.answer(query, undefined, false, (await tailedP.fetch(query, false)).tail).corrected;
  const correct = loadQueryCorrector(spec);
  return async (query) => correct(query)?.text ?? null;
}

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
  const entry = { spec, policy: cpuGenerator(spec, kv, round), correct: roundCorrector(spec, kv, round) };
  if (generators.size >= SERVING_LIMITS.generatorCacheEntries) generators.delete(generators.keys().next().value as string);
  generators.set(key, entry);
  return entry;
}

async function cached(deps: KeywordDeps, key: string): Promise<QueryKeywords | null> {
  const local = keywordLru.get(key);
  if (local && (local.expiresAtMs === undefined || local.expiresAtMs > Date.now())) return local;
  try {
    const v = await deps.kv.get<QueryKeywords>(key, "json");
    if (v) keywordLru.set(key, key.startsWith("kwf:") ? { ...v, expiresAtMs: Date.now() + FALLBACK_CACHE.isolateTtlMs } : v);
    return v;
  } catch (e) {
    console.warn("KV keyword cache read failed:", (e as Error).message);
    return null;
  }
}

function remember(deps: KeywordDeps, key: string, answer: QueryKeywords, fallback: boolean): QueryKeywords {
  keywordLru.set(key, fallback ? { ...answer, expiresAtMs: Date.now() + FALLBACK_CACHE.isolateTtlMs } : answer);
  deps.waitUntil(
    Promise.resolve()
      .then(() => deps.kv.put(key, JSON.stringify(answer), { expirationTtl: fallback ? FALLBACK_CACHE.kvTtlS : deps.keywordCacheTtlS }))
      .catch((e) => console.warn("KV keyword cache write failed", e)),
  );
  return answer;
}

/** The round's model (the breaker has let this request call it); null when it cannot answer. */
async function llmAnswer(
  deps: KeywordDeps,
  breaker: CircuitBreaker,
  spec: Extract<QueryGeneratorSpec, { kind: "llm" }>,
  query: string,
): Promise<string[] | null> {
  const client = new KeywordClient({
    baseUrl: deps.llmBaseUrl as string,
    apiKey: deps.llmApiKey,
    model: spec.model,
    decoding: spec.decoding,
    // Two attempts share the budget; the deadline caps the total, retry-after included.
    timeoutMs: Math.max(1, Math.floor(deps.llmTimeoutMs / 2)),
    maxRetries: 1,
    deadlineMs: deps.llmTimeoutMs,
  });
  try {
    const { keywords } = await client.generate(queryPrompt(spec.prompts, query), REWARD_LIMITS.kMax);
    breaker.success();
    return keywords;
  } catch (e) {
    breaker.failure((e as Error).message);
    console.warn("LLM keyword generation failed; falling back:", (e as Error).message);
    return null;
  }
}

/**
 * The query's keywords for a round. `verbatim` reads the query as typed (no
 * spelling correction): its answers are cached apart.
 */
export async function queryKeywords(deps: KeywordDeps, round: ServingManifest, query: string, verbatim = false): Promise<QueryKeywords> {
  const key = (await keywordCacheKey(round.round, round.contentHash, query)) + (verbatim ? VERBATIM_SUFFIX : "");
  const hit = await cached(deps, key);
  // Answers warmed at publish (precomputed keywords) carry no correction: the round's corrector supplies it.
  if (hit) return hit.corrected !== undefined ? hit : { ...hit, corrected: await correctionOf(deps, round, query, verbatim) };
  let generator: Awaited<ReturnType<typeof roundGenerator>>;
  try {
    generator = await roundGenerator(deps.kv, round);
  } catch (e) {
    console.warn(`round ${round.round}'s query generator could not be loaded; answering from the raw query:`, (e as Error).message);
    return { keywords: [], source: "raw", corrected: null };
  }
  const { spec, policy } = generator;
  let partial = false;
  const fallback = async (): Promise<QueryKeywords> => {
    if (!policy) return { keywords: [], source: "raw", corrected: null };
    const g = await policy(query, deps, verbatim);
    partial = g.partial === true;
    return { keywords: g.keywords.slice(0, REWARD_LIMITS.kMax), source: "policy", corrected: g.corrected };
  };
  if (spec.kind !== "llm") {
    if (!policy) return fallback();
    const answer = await fallback();
    // An answer read without its tail is the head's alone: served, not kept as the round's.
    return partial ? answer : remember(deps, key, answer, false);
  }
  if (!deps.llmBaseUrl) return fallback();
  const breaker = breakerFor(deps.llmBaseUrl, deps.llmCoolDownMs);
  // Open circuit: no call, and no cache traffic either (the fallback costs what a round without an LLM costs).
  if (!breaker.allow()) return fallback();
  const fallbackKey = `kwf:${key.slice(3)}`;
  const recent = await cached(deps, fallbackKey);
  if (recent) {
    breaker.release();
    return { ...recent, corrected: recent.corrected ?? null };
  }
  // The model reads the query as typed; it spells its own keywords.
  const keywords = await llmAnswer(deps, breaker, spec, query);
  if (keywords) return remember(deps, key, { keywords, source: "llm", corrected: null }, false);
  return remember(deps, fallbackKey, await fallback(), true);
}

/** What keeps a verbatim answer's cache key apart from the corrected one's (the key's round prefix stays, for unpublish). */
const VERBATIM_SUFFIX = ":verbatim";

/** A warmed answer's correction, from the round's corrector (null when the generator cannot be read). */
async function correctionOf(deps: KeywordDeps, round: ServingManifest, query: string, verbatim: boolean): Promise<string | null> {
  if (verbatim) return null;
  try {
    return await (await roundGenerator(deps.kv, round)).correct(query);
  } catch {
    return null;
  }
}
