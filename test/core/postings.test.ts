import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBase64, toBase64 } from "../../core/base64.js";
import { decodeKeywordPosting, decodeWordPosting, encodeKeywordPosting, encodeWordPosting } from "../../core/postings.js";
import { ascendingItems, wordPostings } from "../support/arbitraries.js";

const ascending = ascendingItems();

describe("posting encoding", () => {
  it("round-trips keyword postings", () => {
    fc.assert(
      fc.property(ascending, (items) => {
        expect(decodeKeywordPosting(encodeKeywordPosting(items))).toEqual(items);
      }),
    );
  });

  it("round-trips word postings", () => {
    fc.assert(
      fc.property(wordPostings(), (p) => {
        expect(decodeWordPosting(encodeWordPosting(p))).toEqual(p);
      }),
    );
  });

  it("is compact: dense ordinals cost about a byte each", () => {
    const items = Uint32Array.from({ length: 1000 }, (_, j) => j * 3);
    expect(encodeKeywordPosting(items).length).toBeLessThanOrEqual(1002);
  });

  it("rejects unsorted input and corrupt bytes", () => {
    expect(() => encodeKeywordPosting([3, 1])).toThrow(/ascending/);
    expect(() => decodeKeywordPosting(Uint8Array.of(3, 1))).toThrow(/truncated/);
    expect(() => decodeKeywordPosting(Uint8Array.of(1, 1, 9))).toThrow(/trailing/);
    expect(() => decodeKeywordPosting(Uint8Array.of(1, 0x80, 0x80, 0x80, 0x80, 0x80, 1))).toThrow(/too long/);
  });

  it("base64 round-trips and matches Node's encoder", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = toBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString("base64"));
        expect(fromBase64(text)).toEqual(bytes);
      }),
    );
    expect(() => fromBase64("ab*=")).toThrow(/invalid base64/);
  });
});
