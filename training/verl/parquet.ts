/**
 * verl's dataset files, written with hyparquet-writer: one row per prompt,
 * in the layout verl's RLHFDataset reads (../shared/notes: data_source,
 * prompt as chat messages, ability, reward_model {style, ground_truth},
 * extra_info), and the two-column layout of verl's SFT trainer (prompt,
 * response). Nested columns get an explicit schema, so pandas/pyarrow see
 * lists of structs, not JSON strings.
 */
import { writeFileSync } from "node:fs";
import { parquetWriteBuffer } from "hyparquet-writer";

export interface RlRow {
  readonly data_source: string;
  readonly prompt: ReadonlyArray<{ readonly role: "user" | "system"; readonly content: string }>;
  readonly ability: string;
  readonly reward_model: { readonly style: "rule"; readonly ground_truth: string };
  readonly extra_info: { readonly side: string; readonly round: number; readonly id: string; readonly index: number };
}

export interface SftRow {
  readonly prompt: string;
  readonly response: string;
}

const text = (name: string) => ({ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "REQUIRED" }) as const;
const int = (name: string) => ({ name, type: "INT32", repetition_type: "REQUIRED" }) as const;

const RL_SCHEMA = [
  { name: "root", num_children: 5 },
  text("data_source"),
  { name: "prompt", repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", repetition_type: "REQUIRED", num_children: 2 },
  text("role"),
  text("content"),
  text("ability"),
  { name: "reward_model", repetition_type: "REQUIRED", num_children: 2 },
  text("style"),
  text("ground_truth"),
  { name: "extra_info", repetition_type: "REQUIRED", num_children: 4 },
  text("side"),
  int("round"),
  text("id"),
  int("index"),
] as const;

const SFT_SCHEMA = [{ name: "root", num_children: 2 }, text("prompt"), text("response")] as const;

function write(path: string, columns: string[], rows: ReadonlyArray<Record<string, unknown>>, schema: readonly object[]): void {
  if (rows.length === 0) throw new Error(`${path}: no rows to write`);
  const buf = parquetWriteBuffer({
    columnData: columns.map((name) => ({ name, data: rows.map((r) => r[name]) as never })),
    schema: schema as never,
  });
  writeFileSync(path, new Uint8Array(buf));
}

export function writeRlParquet(path: string, rows: readonly RlRow[]): void {
  write(path, ["data_source", "prompt", "ability", "reward_model", "extra_info"], rows as unknown as Array<Record<string, unknown>>, RL_SCHEMA);
}

export function writeSftParquet(path: string, rows: readonly SftRow[]): void {
  write(path, ["prompt", "response"], rows as unknown as Array<Record<string, unknown>>, SFT_SCHEMA);
}
