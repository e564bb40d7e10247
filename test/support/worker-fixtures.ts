/**
 * Node-side preparation for the workerd tests: builds round artifacts (the
 * synthetic catalogue always, WANDS when COGR_DATA is set) and hands them to
 * the tests as JSON bindings, since code inside workerd cannot read files.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { indexHintSource } from "../../core/hints.js";
import { singular } from "../../core/morph.js";
import { keywordWords, normalizeKeyword } from "../../core/normalize.js";
import { loadPolicy, policySpec } from "../../core/policy-spec.js";
import {
  type ExtractorGeneratorSpec,
  llmGeneratorSpec,
  loadHintedGenerator,
  loadQueryCorrector,
  loadQueryGenerator,
  type PolicyGeneratorSpec,
  policyGeneratorSpec,
  policyOf,
  splitPolicyTail,
} from "../../core/query-generator.js";
import { type RankerSpec, TEXT_RANKER } from "../../core/ranker.js";
import { postingLine } from "../../core/round-format.js";
import { artifactSource } from "../../publish/node/artifact.js";
import { loadWands } from "../../training/data/wands.js";
import { trainLexical } from "../../training/lexical.js";
import { readRound, writeRound } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
import { buildVocabulary } from "../../training/vocabulary.js";
import { wandsDir, writeSyntheticWands } from "../fixtures.js";
import type { TestRounds } from "./test-rounds.js";
import type { WireRound } from "./wire-round.js";

/** A round artifact as JSON, as the publisher streams it. */
export function toWire(round: ReturnType<typeof readRound>): WireRound {
  const src = artifactSource(round.manifest.round, dirname(dirname(round.dir)));
  return {
    manifest: src.manifest,
    header: src.header,
    items: [...src.items()],
    postings: [...src.postings()].map(postingLine),
    queryGenerator: src.queryGenerator,
    queryDfTail: [...(src.queryDfTail?.() ?? [])],
    policyTail: [...(src.policyTail?.() ?? [])],
  };
}

export async function buildTestRounds(): Promise<TestRounds> {
  const root = mkdtempSync(join(tmpdir(), "cogr-worker-rounds-"));
  const synth = await loadWands(writeSyntheticWands(150).dir);
  writeRound(buildRound0(synth, { devQueries: 8 }), root);
  const r0 = readRound(0, root);
  const synthetic0 = toWire(r0);
  // The same items under the other rankers (core/ranker.ts): word postings over the text, and a blend.
  const ranked = (ranker: RankerSpec) => {
    const rroot = mkdtempSync(join(tmpdir(), "cogr-worker-ranker-"));
    writeRound(buildRound0(synth, { devQueries: 8, ranker }), rroot);
    return toWire(readRound(0, rroot));
  };
  const syntheticText = ranked(TEXT_RANKER);
  const syntheticBlend = ranked({ keywords: 4, text: 1 });
  const synthetic1: WireRound = {
    ...synthetic0,
    manifest: { ...synthetic0.manifest, round: 1 },
    queryGenerator: llmGeneratorSpec("test-model", r0.queryGenerator as ExtractorGeneratorSpec),
  };
  // Round 1 trained by the lexical backend: its query policy must give the same keywords in workerd as here.
  const synthData = await loadWands(synth.dir);
  trainLexical(
    synthData,
    {
      rounds: 1,
      seed: 3,
      fromRound: 0,
      epochs: { sft: 1, query: 1, item: 1 },
      ablations: { noSft: false, sharedGenerator: false, itemReward: "marginal", freezeItems: false, noHints: false },
      artifactsRoot: root,
    },
    { phaseStart: () => {}, step: () => {}, phaseEnd: () => {} },
  );
  const trained = readRound(1, root);
  const generate = loadQueryGenerator(trained.queryGenerator, trained.index);
  const policyQueries = [...synthData.queries.map((q) => q.text), "Velvet Sofa-Bed!", "blue grey rug", "ÉLAN chair", "x"];
  const policyKeywords = Object.fromEntries(policyQueries.map((q) => [q, generate ? generate(q) : []]));
  const tailed = tailedRound(trained, root, policyQueries);
  const dir = wandsDir();
  let wands0: WireRound | null = null;
  let wandsQueries: string[] = [];
  let wandsBlend: WireRound | null = null;
  if (dir) {
    const data = await loadWands(dir);
    const wroot = mkdtempSync(join(tmpdir(), "cogr-worker-wands-"));
    writeRound(buildRound0(data), wroot);
    wands0 = toWire(readRound(0, wroot));
    const broot = mkdtempSync(join(tmpdir(), "cogr-worker-wands-blend-"));
    writeRound(buildRound0(data, { ranker: { keywords: 4, text: 1 } }), broot);
    wandsBlend = toWire(readRound(0, broot));
    wandsQueries = data.queries.map((q) => q.text);
  }
  return {
    synthetic0,
    synthetic1,
    syntheticText,
    syntheticBlend,
    wands0,
    wandsBlend,
    wandsQueries,
    trained: { ...toWire(trained), manifest: { ...trained.manifest, round: 7 } },
    policyKeywords,
    ...tailed,
  };
}

/**
 * The trained round again (as round 8), its query policy's vocabulary cut to
 * a third of its keywords and words: the rest ships as the policy's tail
 * (core/policy-tail.ts). Node's answers read the whole tail; the head's alone
 * show which queries the tail changes.
 */
function tailedRound(trained: ReturnType<typeof readRound>, root: string, queries: readonly string[]): Pick<TestRounds, "tailed" | "tailedAnswers"> {
  const whole = policyOf(trained.queryGenerator) as PolicyGeneratorSpec;
  const units = trained.items.map((it) => ({ words: new Set([it.name, ...it.keywords].flatMap(keywordWords)), keywords: it.keywords }));
  const words = new Set(units.flatMap((u) => [...u.words].map(singular)));
  const keywords = new Set(units.flatMap((u) => u.keywords));
  const vocab = buildVocabulary(units, { headKeywords: Math.floor(keywords.size / 3), headWords: Math.floor(words.size / 3) });
  const spec = policyGeneratorSpec(policySpec("query", loadPolicy(whole.policy).params, vocab, whole.policy.kMax, whole.policy.hints));
  const { manifest } = trained;
  writeRound({ round: 8, split: manifest.split, config: manifest.config, items: trained.items, index: trained.index, queryGenerator: spec }, root);
  const round = readRound(8, root);
  const policy = policyOf(round.queryGenerator) as PolicyGeneratorSpec;
  const hints = indexHintSource(round.index, policy.policy.hints?.topK ?? 10);
  const generate = loadHintedGenerator(policy);
  const correct = loadQueryCorrector(policy);
  // Misspelled (a letter dropped from the longest word) and the tail's own keywords, beside the policy queries.
  const misspelled = queries.map((q) => {
    const w = keywordWords(q).reduce((a, b) => (b.length > a.length ? b : a), "");
    return w.length >= 5 ? q.toLowerCase().replace(w, w.slice(0, 2) + w.slice(3)) : q;
  });
  const rare = (policy.policy.tailWords ?? []).flatMap(([, e]) => (e.k ?? []).map(([k]) => k)).slice(0, 40);
  // One query per normalised text: the worker's keyword cache keys on it.
  const asked = [...new Map([...queries, ...misspelled, ...rare].map((q) => [normalizeKeyword(q), q])).values()];
  const tailedAnswers = asked.map((q) => ({
    query: q,
    keywords: generate(q, hints(q)),
    corrected: correct(q)?.text ?? null,
    headOnly: generate(q, hints(q), { tail: new Map() }),
  }));
  // Served in buckets of ~2 KB (64 KB at scale), so a query reads a few of many.
  return { tailed: { ...toWire(round), queryGenerator: splitPolicyTail(round.queryGenerator, 2_048).head }, tailedAnswers };
}
