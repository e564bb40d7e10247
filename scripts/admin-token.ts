/**
 * The ADMIN_TOKEN `npm start` gives `wrangler dev`: the shell's when set
 * (start passes it with --var, which wins over the file), else the one in
 * .dev.vars (or, without that file, .env: wrangler reads one or the other).
 * A token shorter than ADMIN_TOKEN_LIMITS.minChars is refused before
 * anything is built: the worker would answer every admin route 503 with it,
 * and a short token is a guessable one.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_TOKEN_LIMITS } from "../core/contract.js";

/** ADMIN_TOKEN's value in a dotenv file (the last assignment wins, as in dotenv), or undefined. */
export function dotenvValue(text: string, key: string): string | undefined {
  let value: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m || m[1] !== key) continue;
    const raw = m[2] as string;
    const quoted = /^(["'`])(.*)\1$/.exec(raw);
    value = quoted ? (quoted[2] as string) : raw.replace(/\s+#.*$/, "");
  }
  return value;
}

/** The token wrangler dev will see, and where it comes from; null when none is set (the admin API is then off, answering 503). */
export function devAdminToken(env: NodeJS.ProcessEnv = process.env, dir = "."): { value: string; from: string } | null {
  if (env.ADMIN_TOKEN) return { value: env.ADMIN_TOKEN, from: "the environment" };
  const file = [".dev.vars", ".env"].find((f) => existsSync(join(dir, f)));
  const value = file ? dotenvValue(readFileSync(join(dir, file), "utf8"), "ADMIN_TOKEN") : undefined;
  return file && value ? { value, from: file } : null;
}

/** Throws one line when the token npm start would serve with is too short. */
export function assertAdminToken(env: NodeJS.ProcessEnv = process.env, dir = "."): void {
  const token = devAdminToken(env, dir);
  if (token && token.value.length < ADMIN_TOKEN_LIMITS.minChars) {
    throw new Error(
      `ADMIN_TOKEN (from ${token.from}) is ${token.value.length} characters; the admin API needs at least ${ADMIN_TOKEN_LIMITS.minChars}: ` +
        "set a longer one (e.g. `openssl rand -hex 32`), or unset it to serve without the admin API",
    );
  }
}
