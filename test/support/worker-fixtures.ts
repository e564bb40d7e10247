/**
 * Node-side preparation for the workerd tests: builds round artifacts (the
 * synthetic catalogue always, WANDS when COGR_DATA is set) and hands them to
 * the tests as JSON bindings, since code inside workerd cannot read files.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ExtractorGeneratorSpec, llmGeneratorSpec, loadQueryGenerator } from "../../core/query-generator.js";
import { type RankerSpec, TEXT_RANKER } from "../../core/ranker.js";
import { postingLine } from "../../core/round-format.js";
import { artifactSource } from "../../publish/node/artifact.js";
import { loadWands } from "../../training/data/wands.js";
import { trainLexical } from "../../training/lexical.js";
import { readRound, writeRound } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
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
  };
}
