/**
 * The generators' prompts and decoding, versioned, stored in every LLM round
 * so that the indexer, the evaluator, the worker and the verl datasets send
 * the model the same text.
 *
 * The paper's Fig. 5 setting: the item side sees the item's title and
 * description, the query side the query text. Both ask for the keywords
 * alone, with no reasoning (§3.3: no chain of thought), as a JSON array
 * (the form SFT teaches; core/keyword-answer.ts also reads plain lists).
 */
import { REWARD_LIMITS } from "./reward.js";

export const PROMPT_FORMAT = "cogr-prompts";
export const PROMPT_VERSION = 1;

export interface PromptSet {
  readonly format: typeof PROMPT_FORMAT;
  readonly version: number;
  /** Placeholders: {query}, {kMax}. */
  readonly query: string;
  /** Placeholders: {title}, {description}, {kMax}. */
  readonly item: string;
}

export const PROMPTS: PromptSet = {
  format: PROMPT_FORMAT,
  version: PROMPT_VERSION,
  query: [
    "You write search keywords for an e-commerce search engine.",
    "Query: {query}",
    "List up to {kMax} keywords or short phrases that the products this shopper wants would be indexed under.",
    'Answer with a JSON array of strings only, e.g. ["keyword one", "keyword two"].',
  ].join("\n"),
  item: [
    "You write search keywords for an e-commerce search engine.",
    "Product title: {title}",
    "Product description: {description}",
    "List up to {kMax} keywords or short phrases that shoppers looking for this product would search for.",
    'Answer with a JSON array of strings only, e.g. ["keyword one", "keyword two"].',
  ].join("\n"),
};

export const PROMPT_LIMITS = { descriptionChars: 1500 } as const;

export function validatePromptSet(p: unknown): PromptSet {
  const s = p as Partial<PromptSet> | null;
  if (s?.format !== PROMPT_FORMAT) throw new Error(`not a ${PROMPT_FORMAT} artifact`);
  if (s.version !== PROMPT_VERSION) throw new Error(`unsupported ${PROMPT_FORMAT} version ${String(s.version)} (this build reads ${PROMPT_VERSION})`);
  if (typeof s.query !== "string" || !s.query.includes("{query}")) throw new Error("the query prompt must hold {query}");
  if (typeof s.item !== "string" || !s.item.includes("{title}")) throw new Error("the item prompt must hold {title}");
  return s as PromptSet;
}

const fill = (template: string, vars: Record<string, string>) => template.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);

export function queryPrompt(prompts: PromptSet, query: string): string {
  return fill(prompts.query, { query, kMax: String(REWARD_LIMITS.kMax) });
}

/** Long descriptions are cut at a word boundary: a keyword list needs the gist, and prompts stay within max_prompt_length. */
export function itemPrompt(prompts: PromptSet, item: { readonly title: string; readonly description: string }): string {
  let d = item.description.replace(/\s+/g, " ").trim();
  if (d.length > PROMPT_LIMITS.descriptionChars) d = `${d.slice(0, d.lastIndexOf(" ", PROMPT_LIMITS.descriptionChars))} …`;
  return fill(prompts.item, { title: item.title, description: d || "(none)", kMax: String(REWARD_LIMITS.kMax) });
}

/** App. B.2, Table 5. Sent explicitly: vLLM would otherwise apply the model's generation_config defaults. */
export const DECODING = {
  rollout: { temperature: 1.0, top_p: 1.0, top_k: -1, min_p: 0, max_tokens: 512 },
  indexing: { temperature: 0.7, top_p: 0.8, top_k: 20, min_p: 0, max_tokens: 512 },
} as const;

export type Decoding = (typeof DECODING)[keyof typeof DECODING];
