import { describe, expect, it } from "vitest";
import { SERVING_LIMITS } from "../../workers/search/limits.js";
import { postingLru } from "../../workers/search/middleware/services.js";
import { ByteLru } from "../../workers/search/store/lru.js";
import { newPostingLru } from "../../workers/search/store/lru-store.js";

describe("ByteLru", () => {
  it("never holds more bytes than its budget and evicts the least recently used", () => {
    const lru = new ByteLru<Uint8Array>(1000, (_k, v) => v.byteLength);
    for (let j = 0; j < 100; j++) {
      lru.set(`k${j}`, new Uint8Array(1 + ((j * 37) % 300)));
      expect(lru.bytes).toBeLessThanOrEqual(1000);
    }
    lru.set("a", new Uint8Array(400));
    lru.set("b", new Uint8Array(400));
    lru.get("a"); // a is now more recent than b
    lru.set("c", new Uint8Array(400));
    expect(lru.get("a")).toBeDefined();
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("c")).toBeDefined();
  });

  it("refuses an entry larger than the whole budget instead of flushing everything", () => {
    const lru = new ByteLru<Uint8Array>(100, (_k, v) => v.byteLength);
    lru.set("small", new Uint8Array(10));
    lru.set("huge", new Uint8Array(101));
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.get("small")).toBeDefined();
  });

  it("accounts keys, values and overhead for postings, with the serving budget", () => {
    const lru = newPostingLru(10_000);
    for (let j = 0; j < 1000; j++) lru.set(`0:hash:w:word${j}`, j % 3 === 0 ? null : [{ first: j, last: j, count: 1, data: new Uint8Array(50) }]);
    expect(lru.bytes).toBeLessThanOrEqual(10_000);
    expect(lru.size).toBeLessThan(1000);
    expect(postingLru.budgetBytes).toBe(SERVING_LIMITS.postingLruBytes);
  });
});
