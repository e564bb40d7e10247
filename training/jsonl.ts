/**
 * Line files of any size, synchronously and in bounded memory: a writer that
 * hashes what it writes, and a reader that hashes what it reads, so round
 * artifacts are checksummed while streaming and never held as one string.
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, readSync, writeSync } from "node:fs";

const CHUNK_BYTES = 1 << 20;

export class LineWriter {
  private readonly fd: number;
  private readonly hash: Hash = createHash("sha256");
  private buffered: string[] = [];
  private size = 0;
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, "w");
  }

  line(text: string): void {
    this.buffered.push(text, "\n");
    this.size += text.length + 1;
    if (this.size >= CHUNK_BYTES) this.flush();
  }

  private flush(): void {
    if (this.buffered.length === 0) return;
    const buf = Buffer.from(this.buffered.join(""), "utf8");
    this.hash.update(buf);
    writeSync(this.fd, buf);
    this.bytes += buf.length;
    this.buffered = [];
    this.size = 0;
  }

  /** Closes the file and returns its sha-256 (hex). */
  close(): string {
    this.flush();
    closeSync(this.fd);
    return this.hash.digest("hex");
  }
}

/**
 * The lines of a file (without their "\n"), read in 1 MB chunks. `hash`, when
 * given, sees every byte of the file, so a caller can check a checksum once
 * the generator is exhausted.
 */
export function* readLines(path: string, hash?: Hash): Generator<string> {
  const fd = openSync(path, "r");
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let carry: Buffer[] = [];
    for (;;) {
      const n = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      const data = chunk.subarray(0, n);
      hash?.update(data);
      let start = 0;
      for (let at = data.indexOf(10); at >= 0; at = data.indexOf(10, start)) {
        const piece = data.subarray(start, at);
        const line = carry.length > 0 ? Buffer.concat([...carry, piece]) : piece;
        carry = [];
        yield line.toString("utf8");
        start = at + 1;
      }
      if (start < n) carry.push(Buffer.from(data.subarray(start)));
    }
    if (carry.length > 0) yield Buffer.concat(carry).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** Reads a whole line file, checking its sha-256 against `expected` at the end. */
export function* readCheckedLines(path: string, expected: string | undefined, what: string): Generator<string> {
  const hash = createHash("sha256");
  yield* readLines(path, hash);
  if (hash.digest("hex") !== expected) throw new Error(`${what}: checksum mismatch`);
}
