/**
 * The admin view of a public response: which experiment, arm and round(s)
 * answered, and each interleaved result's team. Only a request carrying the
 * admin token (`Authorization: Bearer <ADMIN_TOKEN>`, compared in constant
 * time) gets it; any other, a wrong token included, is an ordinary client
 * and gets the ordinary response, never an error, so the search API does
 * not become a token oracle. Without ADMIN_TOKEN, or with one shorter than
 * ADMIN_TOKEN_LIMITS.minChars, nobody gets it.
 */
import { ADMIN_TOKEN_LIMITS, tokensEqual } from "../../../core/contract.js";

export async function isAdminView(expected: string | undefined, authorization: string | undefined): Promise<boolean> {
  // A token too short to be safe disables the admin view, as it disables the admin API (admin-auth.ts).
  if (!expected || expected.length < ADMIN_TOKEN_LIMITS.minChars || !authorization) return false;
  const match = /^Bearer\s+(.+)$/i.exec(authorization);
  return match ? tokensEqual(match[1] as string, expected) : false;
}
