/**
 * Synthetic WANDS-format catalogues of any size, built from a real WANDS
 * folder, for the scale benchmarks and tests (never committed).
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
import { loadQueries, PRODUCT_HEADER, type Product, streamProducts, streamTsv, WANDS_FILES } from "./wands.js";

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
  for await (const p of streamProducts(join(source, WANDS_FILES.products))) templates.push(p);
  const P = templates.length;
  if (P === 0) throw new RangeError(`${join(source, WANDS_FILES.products)} holds no product`);
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

  const queries = await loadQueries(join(source, WANDS_FILES.queries));
  const qout = createWriteStream(join(out, WANDS_FILES.queries));
  await write(qout, "query_id\tquery\tquery_class\n");
  for (const q of queries) await write(qout, `${q.id}\t${field(q.text)}\t${field(q.class)}\n`);
  await close(qout);

  const labels = createWriteStream(join(out, WANDS_FILES.labels));
  await write(labels, "id\tquery_id\tproduct_id\tlabel\n");
  let n = 0;
  for await (const { row } of streamTsv(join(source, WANDS_FILES.labels), ["query_id", "product_id", "label"])) {
    const [q, p, label] = row as [string, string, string];
    const at = position.get(p);
    if (at === undefined) continue; // a label of a product absent from the source: nothing inherits it
    for (let j = at; j < opts.items; j += P) await write(labels, `${n++}\t${q}\t${j}\t${label}\n`);
  }
  await close(labels);
  return { items: opts.items, templates: P, queries: queries.length, labels: n };
}
