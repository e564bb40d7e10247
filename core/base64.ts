/** Standard base64 without Buffer or atob, so the same code runs in Node and workerd. */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const LOOKUP = new Int16Array(128).fill(-1);
for (let j = 0; j < ALPHABET.length; j++) LOOKUP[ALPHABET.charCodeAt(j)] = j;

export function toBase64(bytes: Uint8Array): string {
  const out: string[] = [];
  let chunk = "";
  for (let j = 0; j < bytes.length; j += 3) {
    const a = bytes[j] as number;
    const b = j + 1 < bytes.length ? (bytes[j + 1] as number) : 0;
    const c = j + 2 < bytes.length ? (bytes[j + 2] as number) : 0;
    const n = (a << 16) | (b << 8) | c;
    chunk += ALPHABET[(n >> 18) & 63];
    chunk += ALPHABET[(n >> 12) & 63];
    chunk += j + 1 < bytes.length ? ALPHABET[(n >> 6) & 63] : "=";
    chunk += j + 2 < bytes.length ? ALPHABET[n & 63] : "=";
    if (chunk.length >= 4096) {
      out.push(chunk);
      chunk = "";
    }
  }
  out.push(chunk);
  return out.join("");
}

export function fromBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new RangeError("base64 length must be a multiple of 4");
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let j = 0; j < text.length; j += 4) {
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const ch = text.charCodeAt(j + k);
      const v = ch === 61 && j + k >= text.length - pad ? 0 : ch < 128 ? (LOOKUP[ch] as number) : -1;
      if (v < 0) throw new RangeError(`invalid base64 character at ${j + k}`);
      n = (n << 6) | v;
    }
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
