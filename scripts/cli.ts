/**
 * Shared CLI plumbing: argument parsing with node:util's parseArgs and one
 * rule for failures — a one-line message on stderr and a non-zero exit, never
 * a stack trace.
 */
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { parseRanker, type RankerSpec } from "../core/ranker.js";

export class UsageError extends Error {}

/** A bad option value (`--round abc`): a usage error whose usage line runCli adds, since the value's parser does not know it. */
export class OptionError extends UsageError {}

let usageLine: string | undefined;

export function parseCli<T extends NonNullable<ParseArgsConfig["options"]>>(options: T, usage: string) {
  usageLine = usage;
  try {
    return parseArgs({ options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    // parseArgs explains some errors over three lines ("… is ambiguous. / Did you forget … / To specify …"): one line here.
    const oneLine = (e as Error).message
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .join(" ");
    throw new UsageError(`${oneLine}\nusage: ${usage}`);
  }
}

export function intOption(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!/^-?[0-9]+$/.test(value) || Number(value) < min) throw new OptionError(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** Runs a CLI entry point: any error becomes one line on stderr and exit code 2 (1 for usage). */
export function runCli(main: () => Promise<void> | void): void {
  // bench:scale reads each step's peak RSS from this line (bench:import its CPU time too: wall time alone means little on a shared machine).
  if (process.env.COGR_REPORT_RSS)
    process.on("exit", () => {
      const u = process.resourceUsage();
      process.stderr.write(`peak-rss-kb ${u.maxRSS} cpu-ms ${Math.round((u.userCPUTime + u.systemCPUTime) / 1000)}\n`);
    });
  Promise.resolve()
    .then(main)
    .catch((e: unknown) => {
      let msg = e instanceof Error ? e.message : String(e);
      if (e instanceof OptionError && usageLine !== undefined && !msg.includes("\n")) msg = `${msg}\nusage: ${usageLine}`;
      process.stderr.write(`error: ${msg.split("\n")[0]}\n`);
      if (e instanceof UsageError && msg.includes("\n")) process.stderr.write(`${msg.split("\n").slice(1).join("\n")}\n`);
      process.exitCode = e instanceof UsageError ? 1 : 2;
    });
}

/** `--ranker keywords|text|"blend K:T"` (core/ranker.ts); undefined when not given. */
export function rankerOption(value: string | undefined): RankerSpec | undefined {
  if (value === undefined) return undefined;
  try {
    return parseRanker(value);
  } catch (e) {
    throw new OptionError(`--ranker: ${(e as Error).message}`);
  }
}

/**
 * Whether the module at `metaUrl` is the entry point this process was started with: a CLI that a test
 * also imports (to run its command with hooks injected, from test/support/) runs itself only then.
 */
export function isEntry(metaUrl: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  // Both through realpath: a symlinked checkout must not make a CLI silently skip its own run.
  const real = (path: string) => (existsSync(path) ? realpathSync(path) : resolve(path));
  return real(resolve(entry)) === real(fileURLToPath(metaUrl));
}
