/** Admin requests in the workerd tests, with the test token (vitest.config.ts). */
import { env } from "cloudflare:workers";
import { send } from "./helpers.js";

export async function admin(
  method: string,
  path: string,
  body?: unknown,
  token: string | null = env.ADMIN_TOKEN ?? "",
  overrides: Record<string, unknown> = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await send(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }, overrides);
  // biome-ignore lint/suspicious/noExplicitAny: the tests read admin bodies loosely; the contract test checks their schemas
  return { res, body: (await res.json()) as Record<string, any> };
}
