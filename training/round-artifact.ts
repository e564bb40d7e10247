/**
 * The round artifact: everything `eval`, `publish` and the next training
 * round need, in one folder `artifacts/rounds/N/` (files: core/round-format.ts).
 * Every file is written and read as a stream of lines and checksummed while
 * streaming. The manifest is written last, so a folder without one is an
 * unfinished round. Loaders check every checksum and reject unknown versions.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { BLOCK_LIMITS } from "../core/blocks.js";
import { compareIds } from "../core/ids.js";
import type { KeywordIndex } from "../core/inverted-index.js";
import type { TailWord } from "../core/policy-tail.js";
import {
  extractorOf,
  joinPolicyTail,
  policyOf,
  type QueryGeneratorSpec,
  splitExtractorDf,
  splitPolicyTail,
  validateQueryGeneratorSpec,
  withExtractor,
} from "../core/query-generator.js";
import {
  contentHashInput,
  type IndexHeader,
  indexFromPostings,
  indexHeader,
  indexPostings,
  type MemoryRound,
  type PostingEntry,
  parseIndexHeader,
  parsePostingLine,
  postingLine,
  ROUND_FILES,
  ROUND_FORMAT,
  ROUND_FORMAT_VERSION,
  type RoundItem,
  type RoundManifest,
} from "../core/round-format.js";
import type { Split } from "../core/split.js";
import { LineWriter, readCheckedLines, readLines } from "./jsonl.js";

export { ROUND_FILES, ROUND_FORMAT, ROUND_FORMAT_VERSION, type RoundItem, type RoundManifest };

/** A round read from its folder. */
export interface Round extends MemoryRound {
  readonly dir: string;
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
  /** The items, any order. */
  readonly items: readonly RoundItem[];
  /** Instead of `items`: a file of their lines already in id order (a streamed build writes it; it is moved into the round). */
  readonly itemsFile?: string;
  readonly index: KeywordIndex;
  readonly queryGenerator: QueryGeneratorSpec;
  readonly metrics?: Record<string, unknown>;
  /** Further files of the round (e.g. the trained policies), checksummed like the rest. */
  readonly extraFiles?: Readonly<Record<string, string>>;
}

export const ROUND_LIMITS = { maxBlockBytes: BLOCK_LIMITS.maxBlockBytes } as const;

function writeItems(content: RoundContent, path: string): string {
  if (content.itemsFile) {
    renameSync(content.itemsFile, path);
    return sha256File(path);
  }
  const out = new LineWriter(path);
  for (const item of [...content.items].sort((a, b) => compareIds(a.id, b.id))) out.line(JSON.stringify(item));
  return out.close();
}

function sha256File(path: string): string {
  const h = createHash("sha256");
  for (const _line of readLines(path, h));
  return h.digest("hex");
}

/** Writes into a temporary folder, then renames it into place: a crash leaves no half round. */
export function writeRound(content: RoundContent, root = artifactsDir()): string {
  const dir = roundDir(content.round, root);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const checksums: Record<string, string> = {};
  checksums[ROUND_FILES.items] = writeItems(content, join(tmp, ROUND_FILES.items));
  const postings = new LineWriter(join(tmp, ROUND_FILES.index));
  postings.line(JSON.stringify(indexHeader(content.index, ROUND_LIMITS.maxBlockBytes)));
  for (const e of indexPostings(content.index, ROUND_LIMITS.maxBlockBytes)) postings.line(postingLine(e));
  checksums[ROUND_FILES.index] = postings.close();
  let generator = content.queryGenerator;
  const extractor = extractorOf(generator);
  if (extractor) {
    const { head, tail } = splitExtractorDf(extractor);
    if (tail.length > 0) {
      const out = new LineWriter(join(tmp, ROUND_FILES.queryDf));
      for (const pair of tail) out.line(JSON.stringify(pair));
      checksums[ROUND_FILES.queryDf] = out.close();
      generator = withExtractor(generator, head);
    }
  }
  const policyTail = splitPolicyTail(generator);
  if (policyTail.tail.length > 0) {
    const out = new LineWriter(join(tmp, ROUND_FILES.queryTail));
    for (const entry of policyTail.tail) out.line(JSON.stringify(entry));
    checksums[ROUND_FILES.queryTail] = out.close();
    generator = policyTail.head;
  }
  const files: Record<string, string> = { [ROUND_FILES.queryGenerator]: JSON.stringify(generator), ...content.extraFiles };
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
  if (!manifest.checksums[name] || !existsSync(join(dir, name))) throw new RoundError(`round ${round} has no ${name}`);
  return checkedText(dir, manifest, name);
}

/** A (small) round file whole, checked against the manifest's checksum. */
function checkedText(dir: string, manifest: RoundManifest, name: string): string {
  const path = join(dir, name);
  const t = readFileSync(path, "utf8");
  if (sha256(t) !== manifest.checksums[name]) throw new RoundError(`${path}: checksum mismatch`);
  return t;
}

/** Names the round asked for, the rounds that are there, and how the missing one is made (round 0 is built; later rounds are trained). */
function missingRound(dir: string): string {
  const round = basename(dir);
  const have = /^[0-9]+$/.test(round) ? listRounds(dirname(dirname(dir))) : [];
  const there = have.length > 0 ? `rounds there: ${have.join(", ")}` : "no rounds there";
  const how = round === "0" ? "build it with `npm run build-round -- --round 0`" : `rounds after 0 come from \`npm run train\` (e.g. \`-- --rounds ${round}\`)`;
  return `no round ${round} in ${dirname(dir)} (${there}): ${how}`;
}

export function readManifest(dir: string): RoundManifest {
  const path = join(dir, "manifest.json");
  if (!existsSync(path)) throw new RoundError(missingRound(dir));
  const m = JSON.parse(readFileSync(path, "utf8")) as Partial<RoundManifest>;
  if (m.format !== ROUND_FORMAT) throw new RoundError(`${path}: not a ${ROUND_FORMAT} manifest`);
  if (m.version !== ROUND_FORMAT_VERSION) {
    throw new RoundError(`${path}: unsupported round format version ${String(m.version)} (this build reads ${ROUND_FORMAT_VERSION}; rebuild the round)`);
  }
  const full = m as RoundManifest;
  // An altered manifest (other split, config or checksums) no longer matches the hash it states.
  if (full.contentHash !== sha256(contentHashInput(full))) throw new RoundError(`${path}: content hash mismatch`);
  return full;
}

/** A round file's lines, checked against the manifest's checksum once read to the end. */
export function roundLines(dir: string, manifest: RoundManifest, name: string): Generator<string> {
  const path = join(dir, name);
  if (!existsSync(path)) throw new RoundError(`${path}: file missing`);
  return readCheckedLines(path, manifest.checksums[name], path);
}

/** Items in ordinal order, streamed. */
export function* roundItems(dir: string, manifest: RoundManifest): Generator<RoundItem> {
  for (const line of roundLines(dir, manifest, ROUND_FILES.items)) if (line !== "") yield JSON.parse(line) as RoundItem;
}

/** The index header alone: the file is closed after its first line. */
export function roundIndexHeader(dir: string, manifest: RoundManifest): IndexHeader {
  const lines = roundLines(dir, manifest, ROUND_FILES.index);
  try {
    return parseIndexHeader(lines.next().value as string | undefined, join(dir, ROUND_FILES.index));
  } finally {
    lines.return(undefined);
  }
}

/** The index header, then every posting in key order, streamed. */
export function roundPostings(dir: string, manifest: RoundManifest): { header: IndexHeader; postings: Generator<PostingEntry> } {
  const lines = roundLines(dir, manifest, ROUND_FILES.index);
  const header = parseIndexHeader(lines.next().value as string | undefined, join(dir, ROUND_FILES.index));
  function* rest(): Generator<PostingEntry> {
    for (const line of lines) if (line !== "") yield parsePostingLine(line);
  }
  return { header, postings: rest() };
}

/** The served query generator (head only) and, when the round has one, its df tail. */
export function roundQueryGenerator(dir: string, manifest: RoundManifest): { spec: QueryGeneratorSpec; tail: Generator<[string, number]> | null } {
  const spec = validateQueryGeneratorSpec(JSON.parse(checkedText(dir, manifest, ROUND_FILES.queryGenerator)));
  return { spec, tail: manifest.checksums[ROUND_FILES.queryDf] ? jsonLines<[string, number]>(dir, manifest, ROUND_FILES.queryDf) : null };
}

/** A served policy's vocabulary tail (core/policy-tail.ts), [word, entry] a line; empty when the round has none. */
export function roundPolicyTail(dir: string, manifest: RoundManifest): Generator<[string, TailWord]> {
  return manifest.checksums[ROUND_FILES.queryTail] ? jsonLines<[string, TailWord]>(dir, manifest, ROUND_FILES.queryTail) : (function* () {})();
}

function* jsonLines<T>(dir: string, manifest: RoundManifest, name: string): Generator<T> {
  for (const line of roundLines(dir, manifest, name)) if (line !== "") yield JSON.parse(line) as T;
}

/** The round's index alone (what eval needs): its postings decoded, item ids from items.jsonl. */
export function readRoundIndex(round: number, root = artifactsDir()): { dir: string; manifest: RoundManifest; index: KeywordIndex; items: RoundItem[] | null } {
  return loadRound(round, root, false);
}

function loadRound(round: number, root: string, keepItems: boolean) {
  const dir = roundDir(round, root);
  const manifest = readManifest(dir);
  const ids: string[] = [];
  const items: RoundItem[] | null = keepItems ? [] : null;
  for (const it of roundItems(dir, manifest)) {
    ids.push(it.id);
    items?.push(it);
  }
  const { header, postings } = roundPostings(dir, manifest);
  if (header.itemCount !== ids.length) throw new RoundError(`${join(dir, ROUND_FILES.index)}: ${header.itemCount} items, items.jsonl holds ${ids.length}`);
  return { dir, manifest, index: indexFromPostings(ids, header.totalLength, postings, header.ranker, header.queryTerms), items };
}

export function readRound(round: number, root = artifactsDir()): Round {
  const { dir, manifest, index, items } = loadRound(round, root, true);
  return { dir, manifest, items: items as RoundItem[], index, queryGenerator: wholeQueryGenerator(dir, manifest) };
}

/**
 * The round's query generator for in-process use (eval, training, benchmarks):
 * an extractor's df whole again, its head and query-df.jsonl joined; a
 * policy's vocabulary tail joined back from query-tail.jsonl.
 */
export function wholeQueryGenerator(dir: string, manifest: RoundManifest): QueryGeneratorSpec {
  const served = roundQueryGenerator(dir, manifest);
  if (policyOf(served.spec)?.policy.tail && !manifest.checksums[ROUND_FILES.queryTail]) {
    throw new RoundError(`${join(dir, ROUND_FILES.queryGenerator)}: its policy's tail ships in ${ROUND_FILES.queryTail}, which the round lacks`);
  }
  const spec = joinPolicyTail(served.spec, roundPolicyTail(dir, manifest));
  const tail = served.tail;
  const extractor = extractorOf(spec);
  if (!tail || !extractor) return spec;
  const { tail: _t, ...rest } = extractor;
  return withExtractor(spec, { ...rest, df: [...extractor.df, ...tail].sort((a, b) => (a[0] < b[0] ? -1 : 1)) });
}
