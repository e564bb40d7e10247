/**
 * The admin API from the CLIs: a running worker (local `npm start` or a
 * deployed URL), the token from ADMIN_TOKEN in the environment (never a
 * flag: flags end up in shell history and process lists).
 */
export const DEFAULT_URL = "http://127.0.0.1:8787";

export class AdminError extends Error {}

export interface AdminClient {
  readonly url: string;
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
}

export function adminClient(url = DEFAULT_URL, token = process.env.ADMIN_TOKEN): AdminClient {
  if (!token) throw new AdminError("set ADMIN_TOKEN in the environment (the worker's secret; .dev.vars for npm start)");
  const base = url.replace(/\/+$/, "");
  return {
    url: base,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      let res: Response;
      try {
        res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (e) {
        throw new AdminError(
          `no worker answered at ${base} (${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}); start one with npm start, or pass --url`,
        );
      }
      const text = await res.text();
      const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      if (!res.ok)
        throw new AdminError(
          `${method} ${path}: ${res.status} ${String(parsed.title ?? "")}: ${String(parsed.detail ?? text)}${parsed.parameter ? ` (${String(parsed.parameter)})` : ""}`,
        );
      return parsed as T;
    },
  };
}
