/**
 * App. B.3's reward input as it travels to the item phase's GRPO workers
 * (item-phase.ts → item-worker.ts). Posted as it is, every keyword of every
 * item set would be copied as its own string into each worker (structured
 * clone copies strings by value): at 1M items a few million strings a worker.
 * Packed, the distinct keywords and names travel once, and each item's set
 * as ids in one typed array (CSR); unpacked, every set holds references to
 * the same strings. The sets, names and their order are exactly the input's.
 */
import type { ItemRewardInput } from "../../core/reward.js";

export interface PackedRewardInput {
  /** The distinct strings of the item sets and names. */
  readonly strings: readonly string[];
  /** Item i's set is ids[start[i] .. start[i + 1]), indices into `strings`. */
  readonly start: Int32Array;
  readonly ids: Int32Array;
  /** Item i's name: strings[names[i]]. */
  readonly names: Int32Array;
  readonly rest: Omit<ItemRewardInput, "itemSets" | "itemNames">;
}

export function packRewardInput(input: ItemRewardInput): PackedRewardInput {
  const index = new Map<string, number>();
  const strings: string[] = [];
  const idOf = (s: string) => {
    let id = index.get(s);
    if (id === undefined) {
      id = strings.length;
      index.set(s, id);
      strings.push(s);
    }
    return id;
  };
  const n = input.itemNames.length;
  const start = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += input.itemSets[i]?.length ?? 0;
    start[i + 1] = total;
  }
  const ids = new Int32Array(total);
  for (let i = 0; i < n; i++) {
    let at = start[i] as number;
    for (const k of input.itemSets[i] ?? []) ids[at++] = idOf(k);
  }
  const names = Int32Array.from(input.itemNames, idOf);
  const { itemSets: _sets, itemNames: _names, ...rest } = input;
  return { strings, start, ids, names, rest };
}

const NONE: readonly string[] = Object.freeze([]);

export function unpackRewardInput(p: PackedRewardInput): ItemRewardInput {
  const itemSets = Array.from({ length: p.names.length }, (_, i): readonly string[] => {
    const [a, b] = [p.start[i] as number, p.start[i + 1] as number];
    return a === b ? NONE : Array.from(p.ids.subarray(a, b), (id) => p.strings[id] as string);
  });
  return { ...p.rest, itemSets, itemNames: Array.from(p.names, (id) => p.strings[id] as string) };
}
