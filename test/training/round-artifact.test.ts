/** The round's content hash: it covers every file, the split and the config, and nothing else. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { llmGeneratorSpec } from "../../core/query-generator.js";
import { loadWands } from "../../training/data/wands.js";
import { readManifest, roundDir, writeRound } from "../../training/round-artifact.js";
import { buildRound0 } from "../../training/round0.js";
import { writeSyntheticWands } from "../fixtures.js";

const round0 = buildRound0(await loadWands(writeSyntheticWands(40).dir), { devQueries: 4 });

describe("contentHash", () => {
  const hashOf = (content: Parameters<typeof writeRound>[0]) => {
    const root = mkdtempSync(join(tmpdir(), "cogr-hash-"));
    writeRound(content, root);
    return readManifest(roundDir(content.round, root)).contentHash;
  };

  it("is the same for identical content (createdAt and metrics aside) and changes with every file, the split and the config", () => {
    const base = hashOf(round0);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(hashOf({ ...round0, metrics: { other: 1 } })).toBe(base);
    const variants = [
      { ...round0, items: round0.items.map((it, j) => (j === 0 ? { ...it, keywords: [...it.keywords, "extra"] } : it)) },
      { ...round0, queryGenerator: llmGeneratorSpec("some-model", round0.queryGenerator as never) },
      { ...round0, extraFiles: { "policies.json": "{}" } },
      { ...round0, config: { ...round0.config, note: "x" } },
      { ...round0, split: { ...round0.split, seed: round0.split.seed + 1 } },
    ];
    const hashes = variants.map(hashOf);
    for (const h of hashes) expect(h).not.toBe(base);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it("is checked on load: a manifest whose config was edited is refused", () => {
    const root = mkdtempSync(join(tmpdir(), "cogr-hash-"));
    const dir = writeRound(round0, root);
    const path = join(dir, "manifest.json");
    const m = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify({ ...m, config: { ...m.config, generator: "edited" } }));
    expect(() => readManifest(dir)).toThrow(/content hash mismatch/);
    const { contentHash: _drop, ...unhashed } = m; // format 2 always states its hash
    writeFileSync(path, JSON.stringify(unhashed));
    expect(() => readManifest(dir)).toThrow(/content hash mismatch/);
    writeFileSync(path, JSON.stringify({ ...m, version: 1 }));
    expect(() => readManifest(dir)).toThrow(/unsupported round format version 1 .*rebuild the round/);
  });
});
