/**
 * A small synthetic catalogue in WANDS's file format, built by the tests
 * themselves so the suite passes on a fresh clone without the real data.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../core/rng.js";
import { PRODUCT_HEADER } from "../training/data/wands.js";

const TYPES = ["chair", "table", "lamp", "sofa", "bed", "rug"];
const MATERIALS = ["wood", "metal", "velvet", "glass"];
const COLORS = ["red", "blue", "grey", "white"];
const BRANDS = ["alder", "birch", "cedar", "dune", "elm"];

export interface SynthFiles {
  dir: string;
  productCount: number;
  queryCount: number;
}

/** Writes product.csv, query.csv and label.csv for `products` synthetic products into a new temp folder. */
export function writeSyntheticWands(products = 120, seed = 7): SynthFiles {
  const rng = new Rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng.next() * xs.length)] as T;
  const dir = mkdtempSync(join(tmpdir(), "cogr-synth-"));
  mkdirSync(dir, { recursive: true });
  const rows: string[] = [PRODUCT_HEADER.join("\t")];
  const attrs: Array<{ type: string; material: string; color: string }> = [];
  for (let id = 0; id < products; id++) {
    const a = { type: pick(TYPES), material: pick(MATERIALS), color: pick(COLORS) };
    attrs.push(a);
    const name = `${pick(BRANDS)} ${a.color} ${a.material} ${a.type}`;
    const cls = `${a.type[0]?.toUpperCase()}${a.type.slice(1)}s`;
    const category = id % 5 === 0 ? "" : `Furniture / ${cls} / ${a.material} ${a.type}s`;
    const description = id % 3 === 0 ? "" : `a sturdy ${a.material} ${a.type} in ${a.color}. easy to clean, "made" to last.`;
    const features = `color : ${a.color}|primarymaterial : ${a.material}|assembly:required`;
    rows.push([String(id), name, cls, category, description, features, "", "", ""].join("\t"));
  }
  writeFileSync(join(dir, "product.csv"), `${rows.join("\n")}\n`);
  const queries: Array<{ text: string; match: (a: (typeof attrs)[number]) => "Exact" | "Partial" | null }> = [];
  for (const t of TYPES) {
    queries.push({ text: t, match: (a) => (a.type === t ? "Exact" : null) });
    for (const m of MATERIALS) queries.push({ text: `${m} ${t}`, match: (a) => (a.type === t ? (a.material === m ? "Exact" : "Partial") : null) });
  }
  queries.push({ text: "spaceship", match: () => null });
  const qrows = ["query_id\tquery\tquery_class"];
  const lrows = ["id\tquery_id\tproduct_id\tlabel"];
  let lid = 0;
  queries.forEach((q, qid) => {
    qrows.push(`${qid}\t${q.text}\tSynthetic`);
    attrs.forEach((a, pid) => {
      const m = q.match(a);
      if (m) lrows.push(`${lid++}\t${qid}\t${pid}\t${m}`);
      else if ((pid + qid) % 7 === 0) lrows.push(`${lid++}\t${qid}\t${pid}\tIrrelevant`);
    });
  });
  // A label whose product is absent, as in a partial product table.
  lrows.push(`${lid++}\t0\t${products + 1000}\tExact`);
  writeFileSync(join(dir, "query.csv"), `${qrows.join("\n")}\n`);
  writeFileSync(join(dir, "label.csv"), `${lrows.join("\n")}\n`);
  return { dir, productCount: products, queryCount: queries.length };
}

/** COGR_DATA when it holds WANDS, else undefined (WANDS tests skip with a message). */
/** What a CLI test runs in: a synthetic catalogue, empty artifacts and local-state folders, and the env that points the CLIs at them. */
export function cliWorkspace(products: number, tag: string) {
  const synth = writeSyntheticWands(products);
  const artifacts = mkdtempSync(join(tmpdir(), `cogr-${tag}-art-`));
  const state = mkdtempSync(join(tmpdir(), `cogr-${tag}-state-`));
  return { synth, artifacts, state, env: { COGR_DATA: synth.dir, COGR_ARTIFACTS: artifacts } };
}

export function wandsDir(): string | undefined {
  const d = process.env.COGR_DATA;
  return d && existsSync(join(d, "product.csv")) ? d : undefined;
}
