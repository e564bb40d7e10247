/**
 * A phase's candidates for every item (core/policy-candidates.ts), built
 * once per phase and read back per batch. Building them costs about 0.2 ms
 * an item, too much to repeat every epoch; holding them as objects costs
 * about 500 bytes a candidate (64 an item), 3 GB at 100k items. Up to
 * `inMemoryCandidates` they stay objects (WANDS: 12,304 × ≤ 64); beyond, they
 * are packed into a temporary file, one record an item (the keyword's UTF-8,
 * its df, the masks of its non-zero and non-one features and the non-one
 * values as float64, so every feature reads back bit for bit), read back by
 * positioned reads per batch. Memory is then the item offsets (8 bytes an
 * item) and one batch.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Candidate } from "../core/policy-candidates.js";
import { FEATURE_COUNT } from "../core/policy-features.js";

export const CANDIDATE_BUDGETS = { inMemoryCandidates: 1_500_000, maxCandidatesPerItem: 64, writeBufferBytes: 1 << 22 } as const;

export interface CandidateStore {
  readonly count: number;
  /** Item j's candidates, in their built order. */
  get(j: number): Candidate[];
  /** How many candidates item j has. */
  size(j: number): number;
  /** Where a file-backed store lives, for another thread to open it read-only (openCandidateFile). */
  readonly file?: CandidateFile;
  /** Frees what the store holds (its file). */
  close(): void;
}

/** Builds every item's candidates once: `build(j)` for j in 0..count−1, in order. */
export function buildCandidateStore(count: number, build: (j: number) => Candidate[], budget: number = CANDIDATE_BUDGETS.inMemoryCandidates): CandidateStore {
  if (count * CANDIDATE_BUDGETS.maxCandidatesPerItem <= budget) {
    const all = Array.from({ length: count }, (_, j) => build(j));
    return { count, get: (j) => all[j] as Candidate[], size: (j) => (all[j] as Candidate[]).length, close: () => {} };
  }
  return FileCandidateStore.write(count, build);
}

export interface CandidateFile {
  readonly path: string;
  /** Item j's record is bytes [offsets[j], offsets[j + 1]). */
  readonly offsets: Float64Array;
  readonly sizes: Uint16Array;
}

/** Writes a packed file of `build(0..count−1)` and closes it (a worker thread's share, joined by joinCandidateFiles). */
export function writeCandidateFile(count: number, build: (j: number) => Candidate[]): CandidateFile {
  const store = FileCandidateStore.write(count, build);
  store.release();
  return store.file;
}

/**
 * One store of several packed files written in item order (the shards of
 * training/parallel/candidates.ts): their bytes appended into one file, their
 * offsets shifted; the parts are removed.
 */
export function joinCandidateFiles(parts: readonly CandidateFile[]): CandidateStore {
  const count = parts.reduce((s, p) => s + p.sizes.length, 0);
  const dir = tempDir();
  const path = join(dir, "candidates.bin");
  const fd = openSync(path, "w+");
  const offsets = new Float64Array(count + 1);
  const sizes = new Uint16Array(count);
  let at = 0;
  let bytes = 0;
  for (const part of parts) {
    const n = part.sizes.length;
    const length = part.offsets[n] as number;
    // Copied a buffer at a time: a shard's file can be gigabytes.
    const from = openSync(part.path, "r");
    const buf = Buffer.alloc(CANDIDATE_BUDGETS.writeBufferBytes);
    for (let done = 0; done < length; ) {
      const got = readSync(from, buf, 0, Math.min(buf.length, length - done), done);
      if (got === 0) throw new Error(`${part.path}: ends at ${done} bytes, its offsets say ${length}`);
      writeSync(fd, buf, 0, got, bytes + done);
      done += got;
    }
    closeSync(from);
    for (let j = 0; j < n; j++) offsets[at + j + 1] = bytes + (part.offsets[j + 1] as number);
    sizes.set(part.sizes, at);
    at += n;
    bytes += length;
    // A part's folder was made by the worker thread that wrote it: removed here, once joined.
    rmSync(dirname(part.path), { recursive: true, force: true });
  }
  return new FileCandidateStore(count, dir, fd, { path, offsets, sizes });
}

/** Another thread's read-only view of a file-backed store (its owner closes it). */
export function openCandidateFile(file: CandidateFile): CandidateStore {
  return new FileCandidateStore(file.sizes.length, null, openSync(file.path, "r"), file);
}

const MASK_WORDS = Math.ceil(FEATURE_COUNT / 32);

/** Temporary folders this thread made and has not removed: gone at exit too, whatever ended the run (but SIGKILL). */
const made = new Set<string>();
let hooked = false;
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cogr-candidates-"));
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      for (const d of made) rmSync(d, { recursive: true, force: true });
    });
  }
  made.add(dir);
  return dir;
}
function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  made.delete(dir);
}

class FileCandidateStore implements CandidateStore {
  private readonly offsets: Float64Array;
  constructor(
    readonly count: number,
    private readonly dir: string | null,
    private readonly fd: number,
    readonly file: CandidateFile,
  ) {
    this.offsets = file.offsets;
  }

  size(j: number): number {
    return this.file.sizes[j] as number;
  }

  static write(count: number, build: (j: number) => Candidate[]): FileCandidateStore {
    const dir = tempDir();
    const path = join(dir, "candidates.bin");
    const fd = openSync(path, "w+");
    const offsets = new Float64Array(count + 1);
    const sizes = new Uint16Array(count);
    let buf = Buffer.alloc(CANDIDATE_BUDGETS.writeBufferBytes);
    let used = 0;
    let written = 0;
    const flush = () => {
      writeSync(fd, buf, 0, used, written);
      written += used;
      used = 0;
    };
    for (let j = 0; j < count; j++) {
      const cands = build(j);
      // An upper bound of the record: 4 + per candidate 2 + UTF-8 (≤ 3 bytes a UTF-16 unit) + 4 + masks + values.
      const need = 4 + cands.reduce((s, c) => s + 6 + 3 * c.keyword.length + 16 * MASK_WORDS + 8 * FEATURE_COUNT, 0);
      if (used + need > buf.length) flush();
      if (need > buf.length) buf = Buffer.alloc(need);
      used = buf.writeUInt32LE(cands.length, used);
      sizes[j] = cands.length;
      for (const c of cands) used = encode(buf, used, c);
      offsets[j + 1] = written + used;
    }
    flush();
    return new FileCandidateStore(count, dir, fd, { path, offsets, sizes });
  }

  get(j: number): Candidate[] {
    const from = this.offsets[j] as number;
    const bytes = (this.offsets[j + 1] as number) - from;
    const buf = Buffer.alloc(bytes);
    readSync(this.fd, buf, 0, bytes, from);
    const n = buf.readUInt32LE(0);
    const out: Candidate[] = [];
    let at = 4;
    for (let c = 0; c < n; c++) {
      const len = buf.readUInt16LE(at);
      const keyword = buf.toString("utf8", at + 2, at + 2 + len);
      at += 2 + len;
      const df = buf.readUInt32LE(at);
      at += 4;
      const nz: number[] = [];
      const real: number[] = [];
      for (let w = 0; w < MASK_WORDS; w++) nz.push(buf.readUInt32LE(at + 4 * w));
      at += 4 * MASK_WORDS;
      for (let w = 0; w < MASK_WORDS; w++) real.push(buf.readUInt32LE(at + 4 * w));
      at += 4 * MASK_WORDS;
      const features = new Array<number>(FEATURE_COUNT).fill(0);
      for (let f = 0; f < FEATURE_COUNT; f++) {
        const bit = 1 << (f % 32);
        if (((real[f >> 5] as number) & bit) !== 0) {
          features[f] = buf.readDoubleLE(at);
          at += 8;
        } else if (((nz[f >> 5] as number) & bit) !== 0) features[f] = 1;
      }
      out.push({ keyword, features, df });
    }
    return out;
  }

  close(): void {
    closeSync(this.fd);
    if (this.dir) removeDir(this.dir);
  }

  /** Closes the file but keeps it, for its new owner (another thread: this one forgets it). */
  release(): void {
    closeSync(this.fd);
    if (this.dir) made.delete(this.dir);
  }
}

function encode(buf: Buffer, at: number, c: Candidate): number {
  const len = buf.write(c.keyword, at + 2, "utf8");
  buf.writeUInt16LE(len, at);
  let p = buf.writeUInt32LE(c.df ?? 0, at + 2 + len);
  const nz = new Array<number>(MASK_WORDS).fill(0);
  const real = new Array<number>(MASK_WORDS).fill(0);
  c.features.forEach((x, f) => {
    if (x === 0) return;
    nz[f >> 5] = (nz[f >> 5] as number) | (1 << (f % 32));
    if (x !== 1) real[f >> 5] = (real[f >> 5] as number) | (1 << (f % 32));
  });
  for (const m of nz) p = buf.writeUInt32LE(m >>> 0, p);
  for (const m of real) p = buf.writeUInt32LE(m >>> 0, p);
  c.features.forEach((x) => {
    if (x !== 0 && x !== 1) p = buf.writeDoubleLE(x, p);
  });
  return p;
}
