/**
 * LEB128 unsigned varints. Postings are stored as delta-coded item ordinals,
 * which are small, so most values fit in one byte.
 */
export class ByteWriter {
  private buf: Uint8Array;
  private len = 0;

  constructor(initialBytes = 64) {
    this.buf = new Uint8Array(initialBytes);
  }

  uint(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
      throw new RangeError(`varint out of range: ${value}`);
    }
    if (this.len + 5 > this.buf.length) {
      const next = new Uint8Array(this.buf.length * 2 + 5);
      next.set(this.buf.subarray(0, this.len));
      this.buf = next;
    }
    let v = value;
    while (v >= 0x80) {
      this.buf[this.len++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.len++] = v;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/**
 * Reads varints at `pos`. The hottest loops (decodeKeywordPosting, word-blocks' decodeEntries, blocks'
 * markKeywordBlocks, score-blocks' addBlockTerms) read one-byte values themselves, with the position in a local, and
 * call a ByteReader only for longer ones (`r.pos = at; v = r.uint(); at = r.pos`): at a million items that ranks a
 * common query's entries 15–20 % faster than `uint()` per value, or than a shared entry-reader object (measured).
 */
export class ByteReader {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  uint(): number {
    // Most varints of a posting (dense deltas, tf, bag lengths) are one byte: that path stays small enough to inline.
    const b = this.bytes[this.pos];
    if (b !== undefined && b < 0x80) {
      this.pos++;
      return b;
    }
    return this.long();
  }

  private long(): number {
    const bytes = this.bytes;
    let pos = this.pos;
    // Unrolled while five bytes remain (a whole varint's most; a sparse posting's deltas take two or three): no
    // bounds check or power per byte. Results as the loop below: the fifth byte's 7 bits times 2^28.
    if (pos + 5 <= bytes.length) {
      let b = bytes[pos++] as number;
      let result = b & 0x7f;
      if (b < 0x80) return this.at(pos, result);
      b = bytes[pos++] as number;
      result |= (b & 0x7f) << 7;
      if (b < 0x80) return this.at(pos, result);
      b = bytes[pos++] as number;
      result |= (b & 0x7f) << 14;
      if (b < 0x80) return this.at(pos, result);
      b = bytes[pos++] as number;
      result |= (b & 0x7f) << 21;
      if (b < 0x80) return this.at(pos, result);
      b = bytes[pos++] as number;
      if (b >= 0x80) throw new RangeError("varint too long");
      return this.at(pos, result + b * 2 ** 28);
    }
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= bytes.length) throw new RangeError("truncated varint");
      const byte = bytes[this.pos++] as number;
      result += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return result;
      shift += 7;
      if (shift > 28) throw new RangeError("varint too long");
    }
  }

  private at(pos: number, value: number): number {
    this.pos = pos;
    return value;
  }

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }
}
