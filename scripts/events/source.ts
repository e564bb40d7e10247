/**
 * Where `npm run events:export` reads the events database: the local state
 * `npm start` and publish use (wrangler's getPlatformProxy over
 * .wrangler/state/v3, or --state DIR), or Cloudflare's through
 * `wrangler d1 execute --remote --json` one page at a time (`--via-wrangler`
 * drives the same CLI path against local state, which is how it is tested).
 */
import { type DeployConfig, readDeployConfig } from "../../publish/node/deploy-config.js";
import { applyMigrations, DEFAULT_STATE_DIR, localBindings } from "../../publish/node/targets.js";
import { wrangler } from "../../publish/node/wrangler.js";
import { sqlText } from "../../publish/sql.js";

export type Param = string | number;

export interface EventsDb {
  all<T>(sql: string, params: readonly Param[]): Promise<T[]>;
  close(): Promise<void>;
}

export interface SourceChoice {
  readonly mode: "local" | "remote";
  readonly stateDir: string;
  readonly env?: string;
  readonly viaWrangler: boolean;
}

interface D1ish {
  prepare(sql: string): { bind(...p: Param[]): { all<T>(): Promise<{ results: T[] }> } };
}

/** ?N placeholders inlined as SQL literals, for `wrangler d1 execute --command`. */
export function inline(sql: string, params: readonly Param[]): string {
  return sql.replace(/\?(\d+)/g, (_, n: string) => {
    const v = params[Number(n) - 1];
    if (v === undefined) throw new Error(`no parameter ?${n}`);
    return typeof v === "number" ? String(v) : sqlText(v);
  });
}

function viaWrangler(config: DeployConfig, choice: SourceChoice): EventsDb {
  const scope = choice.mode === "remote" ? ["--remote"] : ["--local", "--persist-to", choice.stateDir];
  if (choice.env) scope.push("--env", choice.env);
  return {
    async all<T>(sql: string, params: readonly Param[]) {
      const out = await wrangler(["d1", "execute", config.events.name, ...scope, "--command", inline(sql, params), "--json"]);
      return ((JSON.parse(out.slice(out.indexOf("["))) as Array<{ results: T[] }>)[0]?.results ?? []) as T[];
    },
    close: async () => {},
  };
}

export async function openEvents(choice: SourceChoice): Promise<EventsDb> {
  const config = readDeployConfig(choice.env);
  // Local state may predate the query column: migrating it is what npm start and publish do too.
  if (choice.mode === "local") await applyMigrations(config, { mode: "local", stateDir: choice.stateDir });
  if (choice.viaWrangler || choice.mode === "remote") return viaWrangler(config, choice);
  const proxy = await localBindings(config, choice.stateDir);
  const db = proxy.env[config.events.binding] as D1ish | undefined;
  if (!db) throw new Error(`wrangler.toml has no ${config.events.binding} binding`);
  return {
    async all<T>(sql: string, params: readonly Param[]) {
      return (
        await db
          .prepare(sql)
          .bind(...params)
          .all<T>()
      ).results;
    },
    close: () => proxy.dispose(),
  };
}

export { DEFAULT_STATE_DIR };
