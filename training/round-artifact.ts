/**
 * The round artifact: everything `eval`, `publish` and the next training
 * round need, in one folder `artifacts/rounds/N/`.
 *
 *   manifest.json         format, version, round, split, config, counts, checksums, metrics
 *   items.jsonl           one item a line: id, name, class, category, keywords (S_i)
 *   index.json            the serialised KeywordIndex (core's format)
 *   query-generator.json  the round's query-side generator
 *
 * The manifest is written last, so a folder without one is an unfinished
 * round. Loaders check every checksum and reject unknown versions.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KeywordIndex, type SerializedIndex } from "../core/inverted-index.js";
import { type QueryGeneratorSpec, validateQueryGeneratorSpec } from "../core/query-generator.js";
import { contentHashInput, ROUND_FILES, ROUND_FORMAT, ROUND_FORMAT_VERSION, type RoundItem, type RoundManifest } from "../core/round-format.js";
import type { Split } from "../core/split.js";

export { ROUND_FILES, ROUND_FORMAT, ROUND_FORMAT_VERSION, type RoundItem, type RoundManifest };

export interface Round {
  readonly dir: string;
  readonly manifest: RoundManifest;
  readonly items: readonly RoundItem[];
  readonly index: KeywordIndex;
  /** The index file as stored, for the publisher. */
  readonly serializedIndex: SerializedIndex;
  readonly queryGenerator: QueryGeneratorSpec;
}

export class RoundError extends Error {}

export function artifactsDir(): string {
  return process.env.COGR_ARTIFACTS ?? "artifacts";
}

export function roundDir(round: number, root = artifactsDir()): string {
  return join(root, "rounds", String(round));
}

/** The complete rounds (those with a manifest) under a root, ascending. */
export function listRounds(root = artifactsDir()): number[] {
  const dir = join(root, "rounds");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((d) => /^[0-9]+$/.test(d) && existsSync(join(dir, d, "manifest.json")))
    .map(Number)
    .sort((a, b) => a - b);
}

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

export interface RoundContent {
  readonly round: number;
  readonly split: Split;
  readonly config: Record<string, unknown>;
  readonly items: readonly RoundItem[];
  readonly index: KeywordIndex;
  readonly queryGenerator: QueryGeneratorSpec;
  readonly metrics?: Record<string, unknown>;
  /** Further files of the round (e.g. the trained policies), checksummed like the rest. */
  readonly extraFiles?: Readonly<Record<string, string>>;
}

/** Writes into a temporary folder, then renames it into place: a crash leaves no half round. */
export function writeRound(content: RoundContent, root = artifactsDir()): string {
  const dir = roundDir(content.round, root);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const files: Record<string, string> = {
    [ROUND_FILES.items]: `${content.items.map((i) => JSON.stringify(i)).join("\n")}\n`,
    [ROUND_FILES.index]: JSON.stringify(content.index.serialize()),
    [ROUND_FILES.queryGenerator]: JSON.stringify(content.queryGenerator),
    ...content.extraFiles,
  };
  const checksums: Record<string, string> = {};
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(tmp, name), text);
    checksums[name] = sha256(text);
  }
  const body = {
    format: ROUND_FORMAT,
    version: ROUND_FORMAT_VERSION,
    round: content.round,
    createdAt: new Date().toISOString(),
    split: content.split,
    config: content.config,
    counts: {
      items: content.index.itemCount,
      keywords: content.index.keywordPostings.size,
      words: content.index.wordPostings.size,
    },
    checksums,
    metrics: content.metrics ?? {},
  } as const;
  const manifest: RoundManifest = { ...body, contentHash: sha256(contentHashInput(body)) };
  writeFileSync(join(tmp, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return dir;
}

/** A further file of a round, checksum-verified. */
export function readRoundFile(round: number, name: string, root = artifactsDir()): string {
  const dir = roundDir(round, root);
  const manifest = readManifest(dir);
  const path = join(dir, name);
  if (!manifest.checksums[name] || !existsSync(path)) throw new RoundError(`round ${round} has no ${name}`);
  const t = readFileSync(path, "utf8");
  if (sha256(t) !== manifest.checksums[name]) throw new RoundError(`${path}: checksum mismatch`);
  return t;
}

export function readManifest(dir: string): RoundManifest {
  const path = join(dir, "manifest.json");
  if (!existsSync(path)) throw new RoundError(`no round at ${dir} (missing manifest.json): run \`npm run build-round -- --round 0\``);
  const m = JSON.parse(readFileSync(path, "utf8")) as Partial<RoundManifest>;
  if (m.format !== ROUND_FORMAT) throw new RoundError(`${path}: not a ${ROUND_FORMAT} manifest`);
  if (m.version !== ROUND_FORMAT_VERSION) {
    throw new RoundError(`${path}: unsupported round format version ${String(m.version)} (this build reads ${ROUND_FORMAT_VERSION})`);
  }
  const full = m as RoundManifest;
  const hash = sha256(contentHashInput(full));
  // An altered manifest (other split, config or checksums) no longer matches the hash it states.
  if (full.contentHash !== undefined && full.contentHash !== hash) throw new RoundError(`${path}: content hash mismatch`);
  return { ...full, contentHash: hash };
}

export function readRound(round: number, root = artifactsDir()): Round {
  const dir = roundDir(round, root);
  const manifest = readManifest(dir);
  const text = (name: string) => {
    const t = readFileSync(join(dir, name), "utf8");
    if (sha256(t) !== manifest.checksums[name]) throw new RoundError(`${join(dir, name)}: checksum mismatch`);
    return t;
  };
  const items = text(ROUND_FILES.items)
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as RoundItem);
  const serializedIndex = JSON.parse(text(ROUND_FILES.index)) as SerializedIndex;
  const index = KeywordIndex.deserialize(serializedIndex);
  const queryGenerator = validateQueryGeneratorSpec(JSON.parse(text(ROUND_FILES.queryGenerator)));
  return { dir, manifest, items, index, serializedIndex, queryGenerator };
}
