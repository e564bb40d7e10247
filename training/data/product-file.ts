/**
 * Products kept out of the JS heap for training (issue 24). A product's text
 * (description and features) is most of its size: at a million products the
 * objects took 2.75 GB of heap, and every candidate worker held its shard
 * again. Here each product is one JSON line of a temporary file, and the heap
 * keeps only what training reads on every pass (id, name, class, category,
 * facets) and the line's byte offset. `description` and `features` are
 * getters that read the line back (one positioned read and a parse; the last
 * line read is kept, so itemSegments' two reads cost one).
 *
 * A StoredProduct is a Product to every reader, but not to structured clone
 * or object spread, which copy own fields only: a worker thread gets the
 * file's path and its shard's offsets (`shard`) and opens its own reader.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Product } from "./types.js";

export const PRODUCT_FILE_LIMITS = { writeChunkBytes: 4 * 2 ** 20, firstReadBytes: 16 * 2 ** 10 } as const;

/** What a worker thread needs to read some products of a file: the file, and each product's line as (byte offset, length). */
export interface ProductShard {
  readonly path: string;
  readonly spans: Float64Array;
}

/** Positioned reads of one product file. */
export class ProductReader {
  private readonly fd: number;
  private buf = Buffer.allocUnsafe(PRODUCT_FILE_LIMITS.firstReadBytes);
  private last = -1;
  private lastProduct: Product | null = null;

  constructor(
    readonly path: string,
    /** Product j's line: spans[2j] (byte offset) and spans[2j + 1] (bytes, without its newline). */
    private readonly spans: Float64Array,
  ) {
    this.fd = openSync(path, "r");
  }

  get count(): number {
    return this.spans.length / 2;
  }

  /** Line j, parsed. */
  read(j: number): Product {
    if (j === this.last && this.lastProduct) return this.lastProduct;
    if (!(j >= 0 && j < this.count)) throw new RangeError(`product ${j} is not in this file (${this.count})`);
    const at = this.spans[2 * j] as number;
    const len = this.spans[2 * j + 1] as number;
    if (len > this.buf.length) this.buf = Buffer.allocUnsafe(Math.max(len, 2 * this.buf.length));
    let got = 0;
    while (got < len) {
      const n = readSync(this.fd, this.buf, got, len - got, at + got);
      if (n === 0) throw new Error(`${this.path}: product ${j} is cut short`);
      got += n;
    }
    this.last = j;
    this.lastProduct = JSON.parse(this.buf.toString("utf8", 0, len)) as Product;
    return this.lastProduct;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** A product whose text stays in the file. */
export class StoredProduct implements Product {
  readonly id: string;
  readonly name: string;
  readonly class: string;
  readonly category: string;
  readonly facets?: Readonly<Record<string, string>>;

  constructor(
    p: Pick<Product, "id" | "name" | "class" | "category" | "facets">,
    /** The file and line it reads from (ProductFile.shard). */
    readonly file: ProductFile,
    readonly line: number,
  ) {
    this.id = p.id;
    this.name = p.name;
    this.class = p.class;
    this.category = p.category;
    if (p.facets !== undefined) this.facets = p.facets;
  }

  get description(): string {
    return this.file.read(this.line).description;
  }

  get features(): ReadonlyArray<readonly [string, string]> {
    return this.file.read(this.line).features;
  }
}

/** Every product file's folder goes when the process exits (one listener, however many files). */
const folders = new Set<string>();
let listening = false;
function removeAtExit(dir: string): void {
  if (!listening) {
    process.once("exit", () => {
      for (const d of folders) rmSync(d, { recursive: true, force: true });
    });
    listening = true;
  }
  folders.add(dir);
}

/**
 * Writes products as they stream in and answers StoredProducts over them.
 * The file lives in a temporary folder removed when the process exits.
 */
export class ProductFile {
  readonly path: string;
  private readonly dir: string;
  private readonly fd: number;
  private offsets = new Float64Array(1024);
  private n = 0;
  private bytes = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  private reader: ProductReader | null = null;
  private readonly products: StoredProduct[] = [];
  private readonly interned = new Map<string, string>();

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), "cogr-products-"));
    this.path = join(this.dir, "products.jsonl");
    this.fd = openSync(this.path, "w");
    removeAtExit(this.dir);
  }

  /** Classes and categories repeat across a catalogue: one string each. */
  private intern(s: string): string {
    const seen = this.interned.get(s);
    if (seen !== undefined) return seen;
    this.interned.set(s, s);
    return s;
  }

  add(p: Product): void {
    if (this.reader) throw new Error("ProductFile: add after finish");
    const line = `${JSON.stringify({ id: p.id, name: p.name, class: p.class, category: p.category, description: p.description, features: p.features, ...(p.facets ? { facets: p.facets } : {}) })}\n`;
    const size = Buffer.byteLength(line);
    if (this.n + 1 >= this.offsets.length) {
      const grown = new Float64Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.offsets[this.n] = this.bytes;
    this.bytes += size;
    this.n++;
    this.pending.push(line);
    this.pendingBytes += size;
    if (this.pendingBytes >= PRODUCT_FILE_LIMITS.writeChunkBytes) this.flush();
    this.products.push(
      new StoredProduct({ id: p.id, name: p.name, class: this.intern(p.class), category: this.intern(p.category), facets: p.facets }, this, this.n - 1),
    );
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending.join(""));
    let done = 0;
    while (done < chunk.length) done += writeSync(this.fd, chunk, done);
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** The products, in the order added; no add after. */
  finish(): StoredProduct[] {
    if (this.reader) return this.products;
    this.flush();
    closeSync(this.fd);
    this.offsets[this.n] = this.bytes;
    this.offsets = this.offsets.slice(0, this.n + 1);
    this.reader = new ProductReader(this.path, this.spansOf(Array.from({ length: this.n }, (_, j) => j)));
    this.interned.clear();
    return this.products;
  }

  /** Closes and deletes the file now (the process's exit would); its products cannot be read after. */
  remove(): void {
    this.reader?.close();
    rmSync(this.dir, { recursive: true, force: true });
    folders.delete(this.dir);
  }

  /** Line j, parsed. */
  read(line: number): Product {
    if (!this.reader) throw new Error("ProductFile: read before finish");
    return this.reader.read(line);
  }

  private spansOf(lines: readonly number[]): Float64Array {
    const spans = new Float64Array(2 * lines.length);
    lines.forEach((l, j) => {
      spans[2 * j] = this.offsets[l] as number;
      spans[2 * j + 1] = (this.offsets[l + 1] as number) - (this.offsets[l] as number) - 1;
    });
    return spans;
  }

  /** These products (lines of this file, any order) for a worker thread: its j-th product is lines[j]. */
  shard(lines: readonly number[]): ProductShard {
    if (!this.reader) throw new Error("ProductFile: shard before finish");
    return { path: this.path, spans: this.spansOf(lines) };
  }
}

/**
 * For a worker thread: where these products are in their file, when every
 * one is a StoredProduct of one file (null otherwise: held whole, they are
 * sent as they are).
 */
export function storedShard(products: readonly Product[]): ProductShard | null {
  const first = products[0];
  if (!(first instanceof StoredProduct)) return null;
  const lines: number[] = [];
  for (const p of products) {
    if (!(p instanceof StoredProduct) || p.file !== first.file) return null;
    lines.push(p.line);
  }
  return first.file.shard(lines);
}

/** A worker thread's side of storedShard: its j-th product read from the file. */
export function shardProducts(shard: ProductShard): { count: number; product(j: number): Product } {
  const reader = new ProductReader(shard.path, shard.spans);
  return { count: reader.count, product: (j) => reader.read(j) };
}
