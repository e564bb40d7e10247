/** core/varint.ts: LEB128 round trips, through the unrolled path and the checked tail alike, and its errors. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteReader, ByteWriter } from "../../core/varint.js";

describe("varints", () => {
  it("read back what was written, whatever sizes they have and wherever they end", () => {
    const value = fc.oneof(fc.nat(127), fc.nat(2 ** 14), fc.nat(2 ** 21), fc.nat(2 ** 28), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 40 }), (xs) => {
        const w = new ByteWriter(1);
        for (const x of xs) w.uint(x);
        const r = new ByteReader(w.finish());
        expect(xs.map(() => r.uint())).toEqual(xs);
        expect(r.done).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a truncated varint and one over five bytes, with or without bytes after it", () => {
    expect(() => new ByteReader(Uint8Array.of(0x80, 0x80)).uint()).toThrow("truncated varint");
    expect(() => new ByteReader(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80)).uint()).toThrow("varint too long");
    expect(() => new ByteReader(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0)).uint()).toThrow("varint too long");
    expect(new ByteReader(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0)).uint()).toBe(0xffffffff);
  });
});
