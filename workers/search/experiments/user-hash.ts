/**
 * User keys are stored hashed (issue 23 §3): the events database holds
 * sha-256(namespace, pepper, key), never the key a client chose or the
 * cookie it was given. Counting needs only equality (COUNT(DISTINCT
 * user_key), spam rules per key), which the hash keeps. USER_KEY_PEPPER
 * (a secret) makes the hash unguessable from a known key; without it the
 * fixed namespace still keeps raw keys out of the database and its exports.
 */
import { sha256Hex } from "../../../core/contract.js";

export const USER_HASH = {
  namespace: "cogr-user-key-v1",
  /** 128 bits of the digest: collisions are out of reach at any event count, and a row stays small. */
  hexChars: 32,
} as const;

export async function hashUserKey(userKey: string, pepper: string | undefined): Promise<string> {
  return (await sha256Hex(`${USER_HASH.namespace}\u0000${pepper ?? ""}\u0000${userKey}`)).slice(0, USER_HASH.hexChars);
}
