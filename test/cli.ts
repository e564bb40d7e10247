/** Runs one of the project's CLI scripts the way npm does, capturing its exit code and output. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runScript(script: string, args: readonly string[], env: Record<string, string | undefined> = {}): CliResult {
  const r = spawnSync(join("node_modules", ".bin", "tsx"), [join("scripts", script), ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 400_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
