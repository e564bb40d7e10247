/**
 * Synthetic WANDS-format catalogues of any size, built from a real WANDS
 * folder (or any COGR_DATA folder: an imported catalogue too), for the scale
 * benchmarks and tests (never committed).
 *
 * Item j's template is the real product j mod P (file order), so the first P
 * items are the real catalogue under new ids. Every later item recombines its
 * template with a donor of the same product class, drawn by a seeded PRNG:
 * the donor's leading name words before the template's trailing ones (the
 * head noun, "… accent chair", stays), the donor's description, the
 * template's class, category and features. Word skew and class mix therefore
 * stay WANDS's. Queries are WANDS's; each label of a template is inherited by
 * every item made from it, so eval still means something at scale.
 */
import { once } from "node:events";
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { getOrInsert } from "../../core/collections.js";
import { Rng } from "../../core/rng.js";
import { dataSource, loadSourceQueries, streamSourceLabelRows, streamSourceProducts } from "./dataset.js";
import type { Product } from "./types.js";
import { PRODUCT_HEADER, WANDS_FILES } from "./wands.js";

export interface SynthOptions {
  readonly items: number;
  readonly seed?: number;
  readonly progress?: (done: number, total: number) => void;
}

export interface SynthSummary {
  readonly items: number;
  readonly templates: number;
  readonly queries: number;
  readonly labels: number;
}

/** Tabs and line breaks cannot live in an unquoted TSV field. */
const field = (s: string) => s.replace(/[\t\r\n]+/g, " ");

async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, "drain");
}

async function close(out: WriteStream): Promise<void> {
  out.end();
  await once(out, "finish");
}

function recombine(template: Product, donor: Product): { name: string } {
  const t = template.name.split(" ");
  const d = donor.name.split(" ");
  const keep = Math.max(1, Math.floor(t.length / 2));
  const lead = d.slice(0, Math.max(1, Math.ceil(d.length / 2)));
  return { name: [...lead, ...t.slice(t.length - keep)].join(" ") };
}

export async function writeSyntheticCatalogue(source: string, out: string, opts: SynthOptions): Promise<SynthSummary> {
  if (!Number.isInteger(opts.items) || opts.items < 1) throw new RangeError(`--items must be a positive integer, got ${opts.items}`);
  const templates: Product[] = [];
  const src = dataSource(source);
  for await (const p of streamSourceProducts(src)) templates.push(p);
  const P = templates.length;
  if (P === 0) throw new RangeError(`${src.products} holds no product`);
  const byClass = new Map<string, number[]>();
  templates.forEach((p, j) => {
    getOrInsert(byClass, p.class, () => []).push(j);
  });
  const position = new Map(templates.map((p, j) => [p.id, j]));
  mkdirSync(out, { recursive: true });

  const rng = new Rng(opts.seed ?? 42);
  const products = createWriteStream(join(out, WANDS_FILES.products));
  await write(products, `${PRODUCT_HEADER.join("\t")}\n`);
  for (let j = 0; j < opts.items; j++) {
    const template = templates[j % P] as Product;
    let name = template.name;
    let description = template.description;
    if (j >= P) {
      const pool = byClass.get(template.class) as number[];
      const donor = templates[pool[Math.floor(rng.next() * pool.length)] as number] as Product;
      name = recombine(template, donor).name;
      description = donor.description;
    }
    const features = template.features.map(([k, v]) => `${k}:${v}`).join("|");
    await write(products, `${[String(j), name, template.class, template.category, description, features, "", "", ""].map(field).join("\t")}\n`);
    if (j % 10_000 === 0) opts.progress?.(j, opts.items);
  }
  await close(products);
  opts.progress?.(opts.items, opts.items);

  const queries = await loadSourceQueries(src);
  // The output is WANDS-format, whose query ids are integers: a catalogue's string query ids are numbered in file order.
  const renumber = queries.some((q) => !/^[0-9]+$/.test(q.id));
  const queryId = new Map(queries.map((q, j) => [q.id, renumber ? String(j) : q.id]));
  const qout = createWriteStream(join(out, WANDS_FILES.queries));
  await write(qout, "query_id\tquery\tquery_class\n");
  for (const q of queries) await write(qout, `${queryId.get(q.id)}\t${field(q.text)}\t${field(q.class)}\n`);
  await close(qout);

  const labels = createWriteStream(join(out, WANDS_FILES.labels));
  await write(labels, "id\tquery_id\tproduct_id\tlabel\n");
  let n = 0;
  for await (const { query: q, product: p, label } of streamSourceLabelRows(src)) {
    const at = position.get(p);
    const qid = renumber ? queryId.get(q) : q;
    if (at === undefined || qid === undefined) continue; // a label of a product (or renumbered query) absent from the source: nothing inherits it
    for (let j = at; j < opts.items; j += P) await write(labels, `${n++}\t${qid}\t${j}\t${label}\n`);
  }
  await close(labels);
  return { items: opts.items, templates: P, queries: queries.length, labels: n };
}
