/** Runs one of the project's CLI scripts the way npm does, capturing its exit code and output. */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runScript(script: string, args: readonly string[], env: Record<string, string | undefined> = {}): CliResult {
  return runEntry(join("scripts", script), args, env);
}

/** Any entry point by its path (e.g. a CLI with a test hook injected, under test/support/). */
export function runEntry(path: string, args: readonly string[], env: Record<string, string | undefined> = {}): CliResult {
  const r = spawnSync(join("node_modules", ".bin", "tsx"), [path, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 400_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** runScript without blocking the event loop: for tests whose servers (e.g. the LLM test server) live in the test process. */
export function runScriptAsync(script: string, args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runEntryAsync(join("scripts", script), args, env);
}

/** runEntry without blocking the event loop. */
export function runEntryAsync(path: string, args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(join("node_modules", ".bin", "tsx"), [path, ...args], { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
