/**
 * Node-side preparation for the workerd tests: builds round artifacts (the
 * synthetic catalogue always, WANDS when COGR_DATA is set) and hands them to
 * the tests as JSON bindings, since code inside workerd cannot read files.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExtractorGeneratorSpec, llmGeneratorSpec, loadQueryGenerator } from "../../core/query-generator.js";
import { loadWands } from "../../training/data/wands.js";
import { trainLexical } from "../../training/lexical.js";
import { readRound, writeRound } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
import type { PublishInput } from "../../workers/publish/plan.js";
import { wandsDir, writeSyntheticWands } from "../fixtures.js";
import type { TestRounds } from "./test-rounds.js";

function toInput(round: ReturnType<typeof readRound>): PublishInput {
  return { manifest: round.manifest, items: round.items, index: round.serializedIndex, queryGenerator: round.queryGenerator };
}

export function buildTestRounds(): TestRounds {
  const root = mkdtempSync(join(tmpdir(), "cogr-worker-rounds-"));
  const synth = loadWands(writeSyntheticWands(150).dir);
  writeRound(buildRound0(synth, { devQueries: 8 }), root);
  const r0 = readRound(0, root);
  const synthetic0 = toInput(r0);
  const synthetic1: PublishInput = {
    ...synthetic0,
    manifest: { ...synthetic0.manifest, round: 1 },
    queryGenerator: llmGeneratorSpec("test-model", r0.queryGenerator as ExtractorGeneratorSpec),
  };
  // Round 1 trained by the lexical backend: its query policy must give the same keywords in workerd as here.
  const synthData = loadWands(synth.dir);
  trainLexical(
    synthData,
    {
      rounds: 1,
      seed: 3,
      fromRound: 0,
      epochs: { sft: 1, query: 1, item: 1 },
      ablations: { noSft: false, sharedGenerator: false, itemReward: "marginal", freezeItems: false },
      artifactsRoot: root,
    },
    { phaseStart: () => {}, step: () => {}, phaseEnd: () => {} },
  );
  const trained = readRound(1, root);
  const generate = loadQueryGenerator(trained.queryGenerator);
  const policyQueries = [...synthData.queries.map((q) => q.text), "Velvet Sofa-Bed!", "blue grey rug", "ÉLAN chair", "x"];
  const policyKeywords = Object.fromEntries(policyQueries.map((q) => [q, generate ? generate(q) : []]));
  const dir = wandsDir();
  let wands0: PublishInput | null = null;
  let wandsQueries: string[] = [];
  if (dir) {
    const data = loadWands(dir);
    const wroot = mkdtempSync(join(tmpdir(), "cogr-worker-wands-"));
    writeRound(buildRound0(data), wroot);
    wands0 = toInput(readRound(0, wroot));
    wandsQueries = data.queries.map((q) => q.text);
  }
  return { synthetic0, synthetic1, wands0, wandsQueries, trained: { ...toInput(trained), manifest: { ...trained.manifest, round: 7 } }, policyKeywords };
}
