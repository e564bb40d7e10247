/**
 * `npm run events:export -- (--local [--state DIR] | --remote [--env E]) [--since ISO] --out FILE`
 *
 * Writes the events database's searches, each followed by its feedback, as
 * JSON Lines (training/clicks/events.ts), paged and resumable (re-run with
 * the same --out: it continues after the file's last complete search
 * group). Then reads the whole file back through the click model's
 * derivation and reports, on stderr, what was written, what was dropped and
 * why (here: rows it cannot use; at derive time: duplicates, feedback
 * without its search, spam keys discounted); the last stderr line is the
 * same as one JSON object.
 */
import { existsSync } from "node:fs";
import { deriveClickRelevance } from "../training/clicks/derive.js";
import { formatDeriveReport } from "../training/clicks/report.js";
import { readLines } from "../training/jsonl.js";
import { parseCli, runCli, UsageError } from "./cli.js";
import { exportEvents } from "./events/export.js";
import { DEFAULT_STATE_DIR, openEvents } from "./events/source.js";

const USAGE = "npm run events:export -- (--local [--state DIR] | --remote [--env E]) [--via-wrangler] [--since ISO] [--page N] --out FILE";

runCli(async () => {
  const args = parseCli(
    {
      local: { type: "boolean" },
      remote: { type: "boolean" },
      state: { type: "string" },
      env: { type: "string" },
      "via-wrangler": { type: "boolean" },
      since: { type: "string" },
      page: { type: "string" },
      out: { type: "string" },
    },
    USAGE,
  );
  if (args.local && args.remote) throw new UsageError(`choose one of --local and --remote\nusage: ${USAGE}`);
  if (!args.local && !args.remote) throw new UsageError(`--local or --remote is required\nusage: ${USAGE}`);
  if (args.out === undefined) throw new UsageError(`--out FILE is required\nusage: ${USAGE}`);
  if (args.env && !args.remote) throw new UsageError("--env goes with --remote (local state has no environments)");
  if (args.state && args.remote) throw new UsageError("--state goes with --local");
  const since = args.since === undefined ? 0 : Date.parse(args.since);
  if (!Number.isFinite(since) || (args.since !== undefined && !/^\d{4}-\d{2}-\d{2}/.test(args.since)))
    throw new UsageError(`--since must be an ISO date or time, e.g. 2026-05-01 or 2026-05-01T12:00:00Z, got ${JSON.stringify(args.since)}`);
  const page = args.page === undefined ? undefined : Number(args.page);
  if (page !== undefined && !(Number.isInteger(page) && page >= 1 && page <= 1000)) throw new UsageError("--page must be an integer from 1 to 1000");
  const stateDir = args.state ?? DEFAULT_STATE_DIR;
  if (args.local && !existsSync(stateDir)) throw new Error(`no local state at ${stateDir}: npm start (or npm run publish) creates it`);

  const db = await openEvents({
    mode: args.remote ? "remote" : "local",
    stateDir,
    viaWrangler: Boolean(args["via-wrangler"]),
    ...(args.env ? { env: args.env } : {}),
  });
  let counts: Awaited<ReturnType<typeof exportEvents>>;
  try {
    const tty = process.stderr.isTTY;
    counts = await exportEvents(
      db,
      args.out,
      since,
      (c) => {
        if (tty) process.stderr.write(`\r${c.searches} searches, ${c.feedback} feedback events written`);
      },
      page,
    );
    if (tty) process.stderr.write("\n");
  } finally {
    await db.close();
  }
  const out = args.out;
  const derived = deriveClickRelevance(() => readLines(out)).report;
  const resumed = counts.resumedAfter ? ` (resumed after ${counts.resumedAfter.requestId}, ${counts.kept} lines kept)` : "";
  const dropped = Object.entries(counts.dropped).map(([why, n]) => `${n} ${why}`);
  process.stderr.write(
    `${[
      `written to ${out}: ${counts.searches} searches and ${counts.feedback} feedback events${resumed}; dropped at export: ${dropped.join(", ")}`,
      `the whole file, as training reads it:`,
      formatDeriveReport(derived),
      JSON.stringify({
        out,
        written: { searches: counts.searches, feedback: counts.feedback },
        kept: counts.kept,
        dropped: counts.dropped,
        file: {
          searches: derived.searches,
          feedback: derived.feedback,
          keys: derived.keys,
          bad: derived.bad,
          dropped: derived.dropped,
          discounted: derived.discounted,
        },
      }),
    ].join("\n")}\n`,
  );
});
