/**
 * A dataset (COGR_DATA: WANDS or a catalogue) rewritten the way a shop would
 * hand it over, for bench:import and the equivalence check: JSON Lines in a
 * seeded shuffled order, other field names, string ids (`sku-<id>`, see IdStyle), the
 * category as a list, the features as an object (a list of one-pair objects
 * where a product repeats a key, as WANDS's sometimes do), an extra field the
 * mapping ignores, and a nested facet. The queries and labels follow in
 * WANDS's shapes with the new ids, and a mapping file (cogr.catalog.json)
 * beside them says how to import it all.
 *
 * Item i's template is product i mod P; past P items (--items > P) repeat
 * the templates under new ids, which is what an import's time depends on.
 * Memory: the P templates and a permutation of the items (4 bytes each).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Rng } from "../../core/rng.js";
import { dataSource, loadSourceQueries, streamSourceLabelRows, streamSourceProducts } from "../../training/data/dataset.js";
import type { Product } from "../../training/data/types.js";
import type { MapFile } from "../../training/import/mapping.js";
import { LineWriter } from "../../training/jsonl.js";

export const REWRITE_FILES = { products: "products.jsonl", queries: "queries.tsv", labels: "labels.tsv", map: "cogr.catalog.json" } as const;

/**
 * Ids as `sku-<id>` (their order is no longer the numeric one: sku-10 < sku-9),
 * or `padded`: `sku-<id zero-padded>`, which keeps the source's order, so
 * whatever follows item order (training's sampling) sees the same sequence.
 */
export type IdStyle = "sku" | "padded";

function idMaker(style: IdStyle, templates: readonly Product[]): (templateId: string, copy: number) => string {
  const width = style === "padded" ? Math.max(...templates.map((t) => t.id.length)) : 0;
  return (templateId, copy) => {
    const base = `sku-${/^[0-9]+$/.test(templateId) ? templateId.padStart(width, "0") : templateId}`;
    return copy === 0 ? base : `${base}-${copy}`;
  };
}

function specs(features: Product["features"]): Record<string, string> | Array<Record<string, string>> {
  const keys = new Set(features.map(([k]) => k));
  if (keys.size === features.length) return Object.fromEntries(features);
  return features.map(([k, v]) => ({ [k]: v }));
}

export interface RewriteSummary {
  readonly items: number;
  readonly templates: number;
  readonly queries: number;
  readonly labels: number;
  readonly map: string;
}

export async function rewriteAsShopJsonl(
  source: string,
  out: string,
  opts: { items?: number; seed?: number; labels?: boolean; ids?: IdStyle } = {},
): Promise<RewriteSummary> {
  const src = dataSource(source);
  const templates: Product[] = [];
  for await (const p of streamSourceProducts(src)) templates.push(p);
  const P = templates.length;
  const n = opts.items ?? P;
  if (P === 0) throw new RangeError(`${src.products} holds no product`);
  const rewrittenId = idMaker(opts.ids ?? "sku", templates);
  const rng = new Rng(opts.seed ?? 42);
  const order = new Uint32Array(n);
  for (let j = 0; j < n; j++) order[j] = j;
  for (let j = n - 1; j > 0; j--) {
    const k = Math.floor(rng.next() * (j + 1));
    [order[j], order[k]] = [order[k] as number, order[j] as number];
  }
  mkdirSync(out, { recursive: true });
  const products = new LineWriter(join(out, REWRITE_FILES.products));
  for (let j = 0; j < n; j++) {
    const i = order[j] as number;
    const t = templates[i % P] as Product;
    const color = t.features.find(([k]) => k === "color")?.[1];
    products.line(
      JSON.stringify({
        sku: rewrittenId(t.id, Math.floor(i / P)),
        title: t.name,
        type: t.class,
        breadcrumbs: t.category === "" ? [] : t.category.split(" / "),
        body: t.description,
        specs: specs(t.features),
        price: { amount: 10 + (i % 990), currency: "EUR" },
        ...(color !== undefined ? { attributes: { color } } : {}),
      }),
    );
  }
  products.close();
  let queries = 0;
  let labels = 0;
  const map: MapFile = {
    products: REWRITE_FILES.products,
    format: "jsonl",
    id: "sku",
    title: "title",
    text: ["body", "specs"],
    class: "type",
    category: "breadcrumbs",
    facets: ["attributes.color"],
  };
  if (opts.labels !== false && src.queries !== null && src.labels !== null) {
    const q = new LineWriter(join(out, REWRITE_FILES.queries));
    q.line("query_id\tquery\tquery_class");
    for (const query of await loadSourceQueries(src)) {
      q.line(`${query.id}\t${query.text}\t${query.class}`);
      queries++;
    }
    q.close();
    const l = new LineWriter(join(out, REWRITE_FILES.labels));
    l.line("id\tquery_id\tproduct_id\tlabel");
    for await (const row of streamSourceLabelRows(src)) l.line(`${labels++}\t${row.query}\t${rewrittenId(row.product, 0)}\t${row.label}`);
    l.close();
    Object.assign(map, { queries: REWRITE_FILES.queries, labels: REWRITE_FILES.labels });
  }
  const mapPath = join(out, REWRITE_FILES.map);
  writeFileSync(mapPath, `${JSON.stringify(map, null, 2)}\n`);
  return { items: n, templates: P, queries, labels, map: mapPath };
}
