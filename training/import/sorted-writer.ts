/**
 * products.jsonl in ascending id order from rows that come in any order, in
 * memory bounded by the row count, never the bytes: each product line is
 * appended to a spool file as it is read, and only (id, offset, length, line)
 * stays in memory (typed arrays, about 60 bytes a row with the id string).
 * At the end the rows are sorted by id (core/ids.ts order; equal ids by input
 * line, so the first of a duplicate is kept) and copied out of the spool by
 * positioned reads. Duplicates are found there, next to each other.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { compareIds } from "../../core/ids.js";

const FLUSH_BYTES = 1 << 20;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
/** Rows copied between two turns of the event loop, so Ctrl-C is heard during a long write. */
const ROWS_PER_TURN = 20_000;

/** Buffered appends to a file descriptor, each returning where its bytes landed. */
class Appender {
  private parts: string[] = [];
  private size = 0;
  bytes = 0;

  constructor(private readonly fd: number) {}

  /** Appends text and returns its byte offset in the file. */
  add(text: string): { offset: number; length: number } {
    const length = Buffer.byteLength(text);
    const offset = this.bytes + this.size;
    this.parts.push(text);
    this.size += length;
    if (this.size >= FLUSH_BYTES) this.flush();
    return { offset, length };
  }

  flush(): void {
    if (this.size === 0) return;
    const buf = Buffer.from(this.parts.join(""), "utf8");
    writeSync(this.fd, buf);
    this.bytes += buf.length;
    this.parts = [];
    this.size = 0;
  }
}

export interface Duplicate {
  readonly id: string;
  readonly line: number;
  readonly firstLine: number;
}

export class SortedSpool {
  private readonly fd: number;
  private readonly out: Appender;
  private ids: string[] = [];
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private lines = new Uint32Array(1024);
  private order: Uint32Array | null = null;

  constructor(private readonly spoolPath: string) {
    this.fd = openSync(spoolPath, "w+");
    this.out = new Appender(this.fd);
  }

  get size(): number {
    return this.ids.length;
  }

  /** One product line (without "\n") with its id and input line. */
  add(id: string, line: number, json: string): void {
    const n = this.ids.length;
    if (n === this.offsets.length) this.grow();
    const { offset, length } = this.out.add(`${json}\n`);
    this.ids.push(id);
    this.offsets[n] = offset;
    this.lengths[n] = length;
    this.lines[n] = line;
  }

  private grow(): void {
    const cap = this.offsets.length * 2;
    const o = new Float64Array(cap);
    o.set(this.offsets);
    const l = new Uint32Array(cap);
    l.set(this.lengths);
    const ln = new Uint32Array(cap);
    ln.set(this.lines);
    [this.offsets, this.lengths, this.lines] = [o, l, ln];
  }

  /** Row numbers in id order; equal ids by input line. compareIds, with each id's decimal test done once. */
  private sorted(): Uint32Array {
    const n = this.ids.length;
    const ids = this.ids;
    const decimal = new Uint8Array(n);
    for (let j = 0; j < n; j++) decimal[j] = DECIMAL.test(ids[j] as string) ? 1 : 0;
    const order = new Uint32Array(n);
    for (let j = 0; j < n; j++) order[j] = j;
    const lines = this.lines;
    order.sort((a, b) => {
      const x = ids[a] as string;
      const y = ids[b] as string;
      if (decimal[a] === 1 && decimal[b] === 1 && x.length !== y.length) return x.length - y.length;
      return x < y ? -1 : x > y ? 1 : (lines[a] as number) - (lines[b] as number);
    });
    return order;
  }

  /**
   * Writes the products in id order to `path`, skipping every repeat of an id
   * (reported to onDuplicate), and closes the spool. Returns the count and
   * the file's sha-256.
   */
  async writeSorted(path: string, onDuplicate: (d: Duplicate) => void): Promise<{ products: number; sha256: string }> {
    this.out.flush();
    const order = this.sorted();
    this.order = order;
    const fd = openSync(path, "w");
    const hash = createHash("sha256");
    // Each row is read from the spool straight into the output buffer.
    let buf = Buffer.allocUnsafe(FLUSH_BYTES);
    let at = 0;
    const flush = () => {
      if (at === 0) return;
      const b = buf.subarray(0, at);
      hash.update(b);
      writeSync(fd, b);
      at = 0;
    };
    let products = 0;
    let prev = -1;
    try {
      for (let k = 0; k < order.length; k++) {
        if (k % ROWS_PER_TURN === ROWS_PER_TURN - 1) await new Promise((r) => setImmediate(r));
        const j = order[k] as number;
        if (prev >= 0 && this.ids[prev] === this.ids[j]) {
          onDuplicate({ id: this.ids[j] as string, line: this.lines[j] as number, firstLine: this.lines[prev] as number });
          continue;
        }
        prev = j;
        const length = this.lengths[j] as number;
        if (at + length > buf.length) {
          flush();
          if (length > buf.length) buf = Buffer.allocUnsafe(length);
        }
        const got = readSync(this.fd, buf, at, length, this.offsets[j] as number);
        if (got !== length) throw new Error(`${this.spoolPath}: short read (${got} of ${length} bytes)`);
        at += length;
        products++;
      }
      flush();
      return { products, sha256: hash.digest("hex") };
    } finally {
      closeSync(fd);
      closeSync(this.fd);
    }
  }

  /** After writeSorted: whether an id is among the products (binary search over the sorted rows). */
  has(id: string): boolean {
    const order = this.order;
    if (order === null) throw new Error("SortedSpool.has before writeSorted");
    let lo = 0;
    let hi = order.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareIds(this.ids[order[mid] as number] as string, id);
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** Closes the spool when writeSorted never ran (a failed import). */
  abandon(): void {
    if (this.order === null) closeSync(this.fd);
  }
}
