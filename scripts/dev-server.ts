/**
 * `wrangler dev` as a child that can always be stopped: it runs in its own
 * process group, so stopping it stops everything it started (its node
 * wrapper, workerd, esbuild), however this process is signalled or exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { QUIET_WRANGLER_ENV, WRANGLER_BIN } from "../publish/node/wrangler.js";
import { writeBenchConfig } from "./bench/wrangler-config.js";

export interface DevServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGINT to the group, SIGKILL 5 s later if anything is left (also on this process's SIGINT/SIGTERM). */
  stop(): void;
  /** Resolves with the exit code once wrangler has exited and its group is gone. */
  readonly exited: Promise<number | null>;
}

const HEALTH = { pollMs: 250, timeoutMs: 150_000 } as const;

/**
 * Starts `wrangler dev` and waits until it answers. The wait accepts only
 * this run's server: /healthz must echo the per-run DEV_INSTANCE token, so
 * another server on the port is never mistaken for it. `benchLimits`: the
 * benchmarks' own config, wrangler.toml with its rate limits raised
 * (bench/wrangler-config.ts); `npm start` runs wrangler.toml as it is.
 */
export async function startDevServer(
  port: number,
  stateDir: string,
  output: "inherit" | "ignore",
  vars: Record<string, string> = {},
  opts: { benchLimits?: boolean } = {},
): Promise<DevServer> {
  const instance = randomUUID();
  // --test-scheduled: GET /__scheduled runs the cron handler (the guardrails) on demand.
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", stateDir, "--show-interactive-dev-session=false", "--test-scheduled"];
  const config = opts.benchLimits ? writeBenchConfig() : null;
  if (config) args.push("--config", config.path);
  for (const [k, v] of Object.entries({ ...vars, DEV_INSTANCE: instance })) args.push("--var", `${k}:${v}`);
  const child = spawn(WRANGLER_BIN, args, {
    env: { ...process.env, ...QUIET_WRANGLER_ENV },
    stdio: ["ignore", output, output],
    detached: true,
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const stop = () => {
    signalGroup("SIGINT");
    setTimeout(() => signalGroup("SIGKILL"), 5000).unref();
  };
  // Registered before the health wait, so Ctrl-C during start-up stops wrangler too.
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.on("exit", () => {
    signalGroup("SIGKILL");
    config?.remove();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      signalGroup("SIGKILL"); // workerd children that outlive the wrapper
      config?.remove();
      resolve(code);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += HEALTH.pollMs) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited before it served on ${url}`);
    if (waited > HEALTH.timeoutMs) throw new Error(`wrangler dev did not answer on ${url} within ${HEALTH.timeoutMs / 1000} s`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok && r.headers.get("x-dev-instance") === instance,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, HEALTH.pollMs));
  }
  return {
    url,
    child,
    exited,
    stop,
  };
}
