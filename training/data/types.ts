/**
 * What every command reads from COGR_DATA, whichever folder holds it: a
 * catalogue folder (training/data/catalog.ts, written by `npm run import`) or
 * WANDS's three files (training/data/wands.ts). training/data/dataset.ts picks
 * the reader.
 */

export interface Product {
  readonly id: string;
  readonly name: string;
  readonly class: string;
  readonly category: string;
  readonly description: string;
  readonly features: ReadonlyArray<readonly [string, string]>;
  /** A catalogue's `--facet` fields, name → value (absent for WANDS): structure for supervision, never indexed text. */
  readonly facets?: Readonly<Record<string, string>>;
}

export interface Query {
  readonly id: string;
  readonly text: string;
  readonly class: string;
}

export interface LabelStats {
  readonly rows: number;
  /** Labels whose product is not in the product table (a partial copy). */
  readonly droppedMissingProduct: number;
  readonly relevant: number;
}

export interface Dataset {
  readonly dir: string;
  readonly products: readonly Product[];
  /** Empty for a catalogue imported without queries. */
  readonly queries: readonly Query[];
  /** query id → ids of its relevant products present in the table (empty without labels). */
  readonly relevant: ReadonlyMap<string, ReadonlySet<string>>;
  readonly labelStats: LabelStats;
}

export type Grade = "Exact" | "Partial" | "Irrelevant";

export const NO_LABELS: LabelStats = { rows: 0, droppedMissingProduct: 0, relevant: 0 };

export class DataError extends Error {}
