/**
 * Running the wrangler CLI from scripts: quiet (no metrics, banner or
 * error reports), output captured, and a failure turned into one line.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

export const QUIET_WRANGLER_ENV = {
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_HIDE_BANNER: "true",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
} as const;

export const WRANGLER_BIN = join("node_modules", ".bin", "wrangler");

export class WranglerError extends Error {}

const ESC = String.fromCharCode(27);
const stripAnsi = (line: string) =>
  line
    .split(ESC)
    .map((part, j) => (j === 0 ? part : part.replace(/^\[[0-9;]*m/, "")))
    .join("");

export async function wrangler(args: readonly string[], opts: { input?: string } = {}): Promise<string> {
  const child = spawn(WRANGLER_BIN, args, { env: { ...process.env, ...QUIET_WRANGLER_ENV }, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  child.stdin.end(opts.input ?? "");
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) {
    const why = `${err}\n${out}`
      .split("\n")
      .map((l) => stripAnsi(l).trim())
      .find((l) => /error|✘|failed/i.test(l));
    throw new WranglerError(`wrangler ${args.slice(0, 3).join(" ")} failed: ${why ?? `exit ${code}`}`);
  }
  return out;
}
