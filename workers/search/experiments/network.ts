/**
 * A search's network: the client's address (CF-Connecting-IP, which
 * Cloudflare sets and a client cannot) cut to its /24 (IPv4) or /48 (IPv6),
 * the blocks one household, office or hosting customer typically holds, so
 * rotating addresses inside one's own block buys nothing. Events store only
 * a salted hash of the prefix (never the address), salted with the
 * experiment's salt, so prefixes compare within an experiment and cannot be
 * joined across experiments or to other logs.
 */
import { sha256Hex } from "../../../core/contract.js";

export const NETWORK_LIMITS = {
  ipv4PrefixBits: 24,
  ipv6PrefixBits: 48,
  /** 64 bits of the salted sha-256: collisions between a million prefixes stay below 1e-7. */
  hashHexChars: 16,
} as const;

/** What an absent or unparsable address counts as: one network (all such traffic shares one cap). */
export const UNKNOWN_NETWORK = "?";

function ipv4Octets(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const octets = parts.map((p) => (/^[0-9]{1,3}$/.test(p) ? Number(p) : Number.NaN));
  return octets.every((o) => o >= 0 && o <= 255) ? octets : null;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail converted), or null. */
function ipv6Groups(text: string): number[] | null {
  let s = text.toLowerCase().replace(/%.*$/, ""); // a zone id names an interface, not a network
  const colon = s.lastIndexOf(":");
  if (colon < 0) return null;
  const tail = s.slice(colon + 1);
  if (tail.includes(".")) {
    const v4 = ipv4Octets(tail);
    if (!v4) return null;
    s = `${s.slice(0, colon + 1)}${(((v4[0] as number) << 8) | (v4[1] as number)).toString(16)}:${(((v4[2] as number) << 8) | (v4[3] as number)).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0] as string);
  const rest = halves.length === 2 ? groups(halves[1] as string) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => Number.parseInt(g, 16));
}

/** The address's network prefix as text ("4:203.0.113", "6:2001:db8:0"); UNKNOWN_NETWORK when absent or unparsable. */
export function networkPrefix(ip: string | undefined | null): string {
  const text = (ip ?? "").trim();
  const v4 = ipv4Octets(text);
  if (v4) return `4:${v4.slice(0, NETWORK_LIMITS.ipv4PrefixBits / 8).join(".")}`;
  const v6 = ipv6Groups(text);
  if (!v6) return UNKNOWN_NETWORK;
  // An IPv4-mapped address (::ffff:a.b.c.d) is that IPv4 client.
  if (v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff) {
    const [hi, lo] = [v6[6] as number, v6[7] as number];
    return `4:${[hi >> 8, hi & 255, lo >> 8].join(".")}`;
  }
  return `6:${v6
    .slice(0, NETWORK_LIMITS.ipv6PrefixBits / 16)
    .map((g) => g.toString(16))
    .join(":")}`;
}

/** The stored form: the prefix hashed with the experiment's salt. */
export async function hashedNetwork(salt: string, ip: string | undefined | null): Promise<string> {
  return (await sha256Hex(`${salt}\u0000net\u0000${networkPrefix(ip)}`)).slice(0, NETWORK_LIMITS.hashHexChars);
}
