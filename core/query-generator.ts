/**
 * A round's query-side generator as it ships inside the round, so the
 * trainer, the evaluator and the worker all run the same one.
 *
 * Round 0 ships the n-gram extractor with the df of the item keywords it may
 * emit (an n-gram no item carries can retrieve nothing). Later rounds ship a
 * trained policy or name an LLM; each kind is versioned and an unknown kind
 * or version is refused.
 */
import { getOrInsert } from "./collections.js";
import { EXTRACTOR_DEFAULTS, extractKeywords, segmentNgrams, segmentText } from "./extract.js";
import { type HintSource, indexHintSource, type SearchHints } from "./hints.js";
import type { KeywordIndex } from "./inverted-index.js";
import { keywordWords } from "./normalize.js";
import { policyCorrection, queryCandidates } from "./policy-candidates.js";
import { type LexicalPolicySpec, loadPolicy } from "./policy-spec.js";
import { type PolicyTail, type TailWord, tailBucketCount, tailWordsOf } from "./policy-tail.js";
import { DECODING, type Decoding, PROMPTS, type PromptSet, validatePromptSet } from "./prompts.js";
import { decodeQuery } from "./set-policy.js";
import { bucketOf } from "./shard.js";
import { type Correction, cachedLexicon, correctQuery } from "./typos.js";

export const QUERY_GENERATOR_FORMAT = "cogr-query-generator";
export const QUERY_GENERATOR_VERSION = 1;

export interface ExtractorGeneratorSpec {
  readonly format: typeof QUERY_GENERATOR_FORMAT;
  readonly version: number;
  readonly kind: "extractor";
  readonly maxKeywords: number;
  readonly maxNgram: number;
  readonly itemCount: number;
  /** Keyword → number of items whose keyword set holds it: all of them, or the head when `tail` is set. */
  readonly df: ReadonlyArray<readonly [string, number]>;
  /**
   * Set when the df table is over QUERY_GENERATOR_LIMITS.headKeywords: the
   * rest (the rarer keywords) ships apart, in `buckets` values keyed by
   * dfBucketOf, fetched per query term, so what an isolate parses stays bounded.
   */
  readonly tail?: { readonly keywords: number; readonly buckets: number };
}

export interface LlmGeneratorSpec {
  readonly format: typeof QUERY_GENERATOR_FORMAT;
  readonly version: number;
  readonly kind: "llm";
  /** The served model name (vLLM's --served-model-name). */
  readonly model: string;
  /** The prompts the round's models were trained and indexed with; the query side's is what the worker sends. */
  readonly prompts: PromptSet;
  /** Query-side decoding at serving time (Table 5's evaluation/indexing row). */
  readonly decoding: Decoding;
  /** An embedded CPU policy to fall back on when the LLM cannot answer. */
  readonly policy?: ExtractorGeneratorSpec | PolicyGeneratorSpec;
}

/** A trained lexical policy (training/, `lexical` backend). */
export interface PolicyGeneratorSpec {
  readonly format: typeof QUERY_GENERATOR_FORMAT;
  readonly version: number;
  readonly kind: "lexical-policy";
  readonly policy: LexicalPolicySpec;
}

export const QUERY_GENERATOR_LIMITS = {
  /** Keywords whose df ships inside the generator (about 2 MB of JSON, under 5 MB parsed). */
  headKeywords: 50_000,
  /** Tail keywords per df bucket, about 60 KB of JSON each. */
  keywordsPerBucket: 2_000,
} as const;

export const dfBucketOf = (keyword: string, buckets: number) => bucketOf(keyword, buckets);

/** Splits an extractor's df into the head it ships (the most frequent keywords) and the tail that ships apart. */
export function splitExtractorDf(
  spec: ExtractorGeneratorSpec,
  limits: { headKeywords: number; keywordsPerBucket: number } = QUERY_GENERATOR_LIMITS,
): { head: ExtractorGeneratorSpec; tail: Array<[string, number]> } {
  if (spec.df.length <= limits.headKeywords) return { head: spec, tail: [] };
  const byDf = [...spec.df].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const byKey = (xs: Array<readonly [string, number]>) => xs.sort((a, b) => (a[0] < b[0] ? -1 : 1)) as Array<[string, number]>;
  const head = byKey(byDf.slice(0, limits.headKeywords));
  const tail = byKey(byDf.slice(limits.headKeywords));
  const buckets = Math.ceil(tail.length / limits.keywordsPerBucket);
  return { head: { ...spec, df: head, tail: { keywords: tail.length, buckets } }, tail };
}

/** The n-grams of a query whose df an extractor with a tail must look up apart (those not in its head). */
export function extractorTailTerms(spec: ExtractorGeneratorSpec, head: ReadonlyMap<string, number>, query: string): string[] {
  if (!spec.tail) return [];
  const out = new Set<string>();
  for (const s of segmentText("name", query)) for (const g of segmentNgrams(s.words, spec.maxNgram)) if (!head.has(g)) out.add(g);
  return [...out];
}

/**
 * The extractor's spelling correction (core/typos.ts): the query's words no
 * head keyword spells, and no tail keyword the caller fetched for this query
 * (its n-grams), one edit from a head word. A word only tail keywords spell,
 * none of them an n-gram of this query, is not known here: it may be mended
 * to a head word one edit away, where the whole df table would keep it.
 */
export function extractorCorrection(head: ReadonlyMap<string, number>, query: string, tail?: ReadonlyMap<string, number>, verbatim = false): Correction | null {
  if (verbatim) return null;
  if (!tail || tail.size === 0) return correctQuery(cachedLexicon(head), query);
  const tailWords = new Set([...tail.keys()].flatMap(keywordWords));
  return correctQuery(cachedLexicon(head), query, (w) => tailWords.has(w));
}

const dfMaps = new WeakMap<ExtractorGeneratorSpec, Map<string, number>>();
/**
 * A spec's df as a map, made once per spec object: its generator, its
 * corrector and its tail reader share it (and so one typo lexicon,
 * core/typos.ts cachedLexicon), instead of a copy each in the isolate.
 */
export function specDf(spec: ExtractorGeneratorSpec): ReadonlyMap<string, number> {
  return getOrInsert(dfMaps, spec, () => new Map(spec.df));
}

/** An extractor generator over its head df plus the tail df the caller fetched for this query; a misspelled query is read corrected. */
export function extractorGenerator(spec: ExtractorGeneratorSpec, head?: ReadonlyMap<string, number>) {
  const opts = { maxKeywords: spec.maxKeywords, maxNgram: spec.maxNgram, minDf: 1 };
  const df = head ?? specDf(spec);
  const correct = head
    ? (query: string, tail?: ReadonlyMap<string, number>, verbatim = false) => extractorCorrection(head, query, tail, verbatim)
    : wholeCorrector(spec, df);
  return (query: string, tail?: ReadonlyMap<string, number>, verbatim = false) =>
    extractKeywords(
      segmentText("name", correct(query, tail, verbatim)?.text ?? query),
      tail && tail.size > 0 ? { get: (k: string) => df.get(k) ?? tail.get(k) } : df,
      spec.itemCount,
      opts,
    );
}

/**
 * The correction of an extractor held whole (its df not split: the trainer's,
 * the evaluator's), as the worker makes it from the served copy: past
 * QUERY_GENERATOR_LIMITS.headKeywords the served copy ships the head and
 * fetches the query's other n-grams from the tail, so the vocabulary is the
 * head's words and a word is also known when an n-gram of the query holding
 * it is in the tail. Without this the two sides disagree on a word only tail
 * keywords spell ("zipper" at 1M items).
 */
function wholeCorrector(spec: ExtractorGeneratorSpec, whole: ReadonlyMap<string, number>) {
  if (spec.tail || spec.df.length <= QUERY_GENERATOR_LIMITS.headKeywords) {
    return (query: string, tail?: ReadonlyMap<string, number>, verbatim = false) => extractorCorrection(whole, query, tail, verbatim);
  }
  const head = new Map(splitExtractorDf(spec).head.df);
  return (query: string, _tail?: ReadonlyMap<string, number>, verbatim = false) => {
    if (verbatim) return null;
    const tail = new Map<string, number>();
    for (const s of segmentText("name", query)) {
      for (const g of segmentNgrams(s.words, spec.maxNgram)) {
        const d = head.has(g) ? undefined : whole.get(g);
        if (d !== undefined) tail.set(g, d);
      }
    }
    return extractorCorrection(head, query, tail);
  };
}

export type QueryGeneratorSpec = ExtractorGeneratorSpec | LlmGeneratorSpec | PolicyGeneratorSpec;

/** A spec's extractor: itself, or an LLM spec's embedded fallback; null for the other kinds. */
export function extractorOf(spec: QueryGeneratorSpec): ExtractorGeneratorSpec | null {
  if (spec.kind === "extractor") return spec;
  return spec.kind === "llm" && spec.policy?.kind === "extractor" ? spec.policy : null;
}

/** The spec with its extractor (extractorOf) replaced. */
export function withExtractor(spec: QueryGeneratorSpec, extractor: ExtractorGeneratorSpec): QueryGeneratorSpec {
  return spec.kind === "llm" ? { ...spec, policy: extractor } : extractor;
}

/** A loaded CPU generator: query text → S_q (normalised, at most maxKeywords). */
export type QueryGenerator = (query: string, opts?: GenerateOptions) => string[];

export interface GenerateOptions {
  /** Read the query as typed: no spelling correction (the page's "search instead for" link). */
  readonly verbatim?: boolean;
  /**
   * A served policy's tail entries for this query's words (core/policy-tail.ts
   * tailWordsOf, and its correction's), fetched by the caller; a policy held
   * whole (training, eval) reads its own.
   */
  readonly tail?: PolicyTail;
}

export function policyGeneratorSpec(policy: LexicalPolicySpec): PolicyGeneratorSpec {
  return { format: QUERY_GENERATOR_FORMAT, version: QUERY_GENERATOR_VERSION, kind: "lexical-policy", policy };
}

export function extractorSpec(keywordDf: ReadonlyMap<string, number>, itemCount: number): ExtractorGeneratorSpec {
  return {
    format: QUERY_GENERATOR_FORMAT,
    version: QUERY_GENERATOR_VERSION,
    kind: "extractor",
    maxKeywords: EXTRACTOR_DEFAULTS.maxKeywords,
    maxNgram: EXTRACTOR_DEFAULTS.maxNgram,
    itemCount,
    df: [...keywordDf].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
  };
}

export function llmGeneratorSpec(model: string, policy?: ExtractorGeneratorSpec | PolicyGeneratorSpec): LlmGeneratorSpec {
  return {
    format: QUERY_GENERATOR_FORMAT,
    version: QUERY_GENERATOR_VERSION,
    kind: "llm",
    model,
    prompts: PROMPTS,
    decoding: DECODING.indexing,
    ...(policy ? { policy } : {}),
  };
}

function validateLlmSpec(s: Partial<LlmGeneratorSpec>): void {
  if (typeof s.model !== "string" || s.model === "") throw new Error("an llm query generator must name its model");
  validatePromptSet(s.prompts);
  const d = s.decoding as Partial<Decoding> | undefined;
  for (const k of ["temperature", "top_p", "top_k", "min_p", "max_tokens"] as const) {
    if (typeof d?.[k] !== "number") throw new Error(`an llm query generator's decoding lacks ${k}`);
  }
  if (s.policy !== undefined) validateQueryGeneratorSpec(s.policy);
}

export function validateQueryGeneratorSpec(spec: unknown): QueryGeneratorSpec {
  const s = spec as Partial<QueryGeneratorSpec> | null;
  if (s?.format !== QUERY_GENERATOR_FORMAT) throw new Error(`not a ${QUERY_GENERATOR_FORMAT} artifact`);
  if (s.version !== QUERY_GENERATOR_VERSION) {
    throw new Error(`unsupported ${QUERY_GENERATOR_FORMAT} version ${String(s.version)} (this build reads ${QUERY_GENERATOR_VERSION})`);
  }
  if (s.kind !== "extractor" && s.kind !== "llm" && s.kind !== "lexical-policy") throw new Error(`unknown query generator kind ${String(s.kind)}`);
  if (s.kind === "llm") validateLlmSpec(s);
  return s as QueryGeneratorSpec;
}

/** The spec with its CPU policy (policyOf) replaced. */
export function withPolicy(spec: QueryGeneratorSpec, policy: PolicyGeneratorSpec): QueryGeneratorSpec {
  return spec.kind === "llm" ? { ...spec, policy } : policy;
}

/**
 * Splits a policy held whole (its `tailWords` in process) into the spec that
 * ships (its tail's size and buckets in `tail`) and the tail's entries, which
 * ship apart (a round's query-tail.jsonl, then KV buckets).
 */
export function splitPolicyTail(
  spec: QueryGeneratorSpec,
  bytesPerBucket?: number,
): { head: QueryGeneratorSpec; tail: ReadonlyArray<readonly [string, TailWord]> } {
  const p = policyOf(spec);
  const entries = p?.policy.tailWords;
  if (!p || !entries || entries.length === 0) return { head: spec, tail: [] };
  const { tailWords: _whole, ...rest } = p.policy;
  const head = withPolicy(spec, { ...p, policy: { ...rest, tail: { words: entries.length, buckets: tailBucketCount(entries, bytesPerBucket) } } });
  return { head, tail: entries };
}

/** A served policy's spec with its tail's entries joined back (in-process use: eval, the next round). */
export function joinPolicyTail(spec: QueryGeneratorSpec, entries: Iterable<readonly [string, TailWord]>): QueryGeneratorSpec {
  const p = policyOf(spec);
  if (!p?.policy.tail) return spec;
  const { tail: _served, ...rest } = p.policy;
  return withPolicy(spec, { ...p, policy: { ...rest, tailWords: [...entries] } });
}

/** The CPU policy a spec runs (itself, or an LLM spec's embedded one), or null for an extractor or none. */
export function policyOf(spec: QueryGeneratorSpec): PolicyGeneratorSpec | null {
  if (spec.kind === "lexical-policy") return spec;
  return spec.kind === "llm" && spec.policy?.kind === "lexical-policy" ? spec.policy : null;
}

/** A hinted policy's first pass: how many items it sees (core/hints.ts); null when the policy takes no hints. */
export function firstPassOf(spec: QueryGeneratorSpec): { readonly topK: number } | null {
  return policyOf(spec)?.policy.hints ?? null;
}

/**
 * The spelling correction a spec's CPU generator applies to a query (what the
 * answer reports as `corrected`), or none for a spec without one. Built once
 * per spec object: call it on the spec the generator was loaded from.
 */
export function loadQueryCorrector(spec: QueryGeneratorSpec): (query: string, opts?: GenerateOptions) => Correction | null {
  if (spec.kind === "llm") return spec.policy ? loadQueryCorrector(spec.policy) : () => null;
  if (spec.kind === "lexical-policy") {
    const { vocab } = loadedPolicy(spec);
    return (query, opts) => (opts?.verbatim ? null : policyCorrection(vocab, query, tailOf(spec, vocab, opts)));
  }
  const correct = wholeCorrector(spec, specDf(spec));
  return (query, opts) => correct(query, undefined, opts?.verbatim);
}

const loaded = new WeakMap<PolicyGeneratorSpec, ReturnType<typeof loadPolicy>>();
/** A policy spec loaded once (its maps are megabytes at scale). */
function loadedPolicy(spec: PolicyGeneratorSpec): ReturnType<typeof loadPolicy> {
  let l = loaded.get(spec);
  if (!l) {
    l = loadPolicy(spec.policy);
    loaded.set(spec, l);
  }
  return l;
}

/**
 * The tail a policy reads for one query: the caller's entries, else the
 * whole tail the spec carries (in process). A served spec whose tail ships
 * apart refuses to answer without the query's entries, which would silently
 * differ from the trainer's answer.
 */
function tailOf(spec: PolicyGeneratorSpec, vocab: { readonly tail?: PolicyTail }, opts?: GenerateOptions): PolicyTail | undefined {
  if (opts?.tail) return opts.tail;
  if (spec.policy.tail && !vocab.tail) {
    throw new Error("this round's query policy reads its vocabulary's tail per query: pass the query's entries (GenerateOptions.tail)");
  }
  return vocab.tail;
}

/** Whether a policy's tail ships apart and must be fetched per query (workers/search/policy-tail.ts). */
export const hasServedTail = (spec: PolicyGeneratorSpec) => spec.policy.tail !== undefined && spec.policy.tailWords === undefined;

/**
 * The tail entries a served policy reads for one query (core/policy-tail.ts),
 * fetched at most twice: the query's words, then, when the spelling
 * correction (which those entries inform) changes the query, the corrected
 * text's words. What the answer reads is exactly what the trainer's whole
 * tail would give it.
 */
export async function fetchPolicyTail(
  spec: PolicyGeneratorSpec,
  query: string,
  verbatim: boolean,
  fetch: (words: readonly string[]) => Promise<PolicyTail>,
): Promise<Map<string, TailWord>> {
  const { vocab } = loadedPolicy(spec);
  const asked = new Set(tailWordsOf(query));
  const tail = new Map(await fetch([...asked]));
  const correction = verbatim ? null : policyCorrection(vocab, query, tail);
  const more = correction ? tailWordsOf(correction.text).filter((w) => !asked.has(w)) : [];
  if (more.length > 0) for (const [w, e] of await fetch(more)) tail.set(w, e);
  return tail;
}

/** A lexical policy as a function of the query and its hints (the worker computes the hints itself). */
export function loadHintedGenerator(spec: PolicyGeneratorSpec): (query: string, hints?: SearchHints, opts?: GenerateOptions) => string[] {
  const { params, vocab } = loadedPolicy(spec);
  return (query, hints, opts?: GenerateOptions) =>
    decodeQuery(params, queryCandidates(vocab, query, hints, opts?.verbatim, tailOf(spec, vocab, opts)), spec.policy.kMax);
}

/**
 * The CPU generator of a spec (an LLM spec's embedded policy), or null when
 * there is none. A hinted policy needs the index it serves with (its first
 * pass runs over it) and is refused without one.
 */
export function loadQueryGenerator(spec: QueryGeneratorSpec, index?: KeywordIndex): QueryGenerator | null {
  if (spec.kind === "llm") return spec.policy ? loadQueryGenerator(spec.policy, index) : null;
  if (spec.kind === "lexical-policy") {
    if (hasServedTail(spec)) throw new Error("this round's query policy reads its vocabulary's tail per query: load the round whole, or fetch it per query");
    const generate = loadHintedGenerator(spec);
    const pass = spec.policy.hints;
    if (!pass) return (query, opts) => generate(query, undefined, opts);
    if (!index) throw new Error("this round's query policy takes search hints: load it with the round's index");
    const hints: HintSource = indexHintSource(index, pass.topK);
    return (query, opts) => generate(query, hints(query), opts);
  }
  const generate = extractorGenerator(spec);
  return (query, opts) => generate(query, undefined, opts?.verbatim);
}
