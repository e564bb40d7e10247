/**
 * `npm run import -- --products FILE [--format jsonl|csv|tsv] --id FIELD --title FIELD [--text FIELD]…
 *   [--class FIELD] [--category FIELD] [--facet FIELD]… [--queries FILE --labels FILE] [--max-bad PCT] --out DIR`
 * or `npm run import -- --map cogr.catalog.json`: the catalogue folder every command reads through COGR_DATA
 * (scripts/import/command.ts).
 */
import { runCli } from "./cli.js";
import { importCommand } from "./import/command.js";

runCli(() => importCommand());
