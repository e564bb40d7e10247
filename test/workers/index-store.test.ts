/**
 * The IndexStore conformance suite: every backend must return exactly the
 * reference blocks (core/blocks.ts over the in-memory index) for any key set.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { keywordKey, wordKey } from "../../core/shard.js";
import { shardDatabases } from "../../workers/search/bindings.js";
import { D1IndexStore } from "../../workers/search/store/d1-store.js";
import type { IndexStore, RoundRef } from "../../workers/search/store/index-store.js";
import { KvCachedStore } from "../../workers/search/store/kv-store.js";
import { LruCachedStore, newPostingLru } from "../../workers/search/store/lru-store.js";
import { MemoryIndexStore } from "../../workers/search/store/memory-store.js";
import { wireIndex } from "../support/wire-round.js";
import { publish, testRounds } from "./helpers.js";

const rounds = await testRounds();

const input = rounds.synthetic0;
const index = wireIndex(input);
const round: RoundRef = { round: 0, contentHash: input.manifest.contentHash, shardCount: 4, chain: [0] };
const pending: Promise<unknown>[] = [];
const waitUntil = (p: Promise<unknown>) => pending.push(p);

const backends: Array<[string, () => IndexStore]> = [
  ["memory", () => new MemoryIndexStore(new Map([[0, index]]))],
  ["d1", () => new D1IndexStore(shardDatabases(env))],
  ["kv → d1", () => new KvCachedStore(env.CACHE, new D1IndexStore(shardDatabases(env)), waitUntil)],
  ["lru → kv → d1", () => new LruCachedStore(newPostingLru(), new KvCachedStore(env.CACHE, new D1IndexStore(shardDatabases(env)), waitUntil))],
];

const reference = new MemoryIndexStore(new Map([[0, index]]));
const allKeys = [...[...index.keywordPostings.keys()].map(keywordKey), ...[...index.wordPostings.keys()].map(wordKey)];

beforeAll(async () => {
  expect(await publish(input)).toBe("published");
});

describe.each(backends)("IndexStore conformance: %s", (_name, make) => {
  it("returns every posting of the round, byte for byte", async () => {
    const store = make();
    for (let pass = 0; pass < 2; pass++) {
      // The second pass reads what the caches kept from the first.
      const got = await store.postings(round, allKeys);
      expect(got.size).toBe(allKeys.length);
      const want = await reference.postings(round, allKeys);
      for (const k of allKeys) expect(got.get(k), k).toEqual(want.get(k));
      await Promise.all(pending.splice(0));
    }
  });

  it("leaves out absent keys, tolerates duplicates and an empty request", async () => {
    const store = make();
    const some = allKeys.slice(0, 3);
    const got = await store.postings(round, [...some, ...some, keywordKey("no such keyword"), wordKey("zzzz"), "x:bad kind"]);
    expect([...got.keys()].sort()).toEqual([...some].sort());
    expect((await store.postings(round, [])).size).toBe(0);
    await Promise.all(pending.splice(0));
  });

  it("handles keys far beyond 100 bound parameters and over-long keys", async () => {
    const store = make();
    const many = [...allKeys, ...Array.from({ length: 300 }, (_, j) => wordKey(`missing${j}`)), keywordKey("é".repeat(400))];
    const got = await store.postings(round, many);
    expect(got.size).toBe(allKeys.length);
    await Promise.all(pending.splice(0));
  });

  it("keeps rounds apart", async () => {
    const store = make();
    const other: RoundRef = { ...round, round: 99, chain: [99] };
    expect((await store.postings(other, allKeys.slice(0, 5))).size).toBe(0);
    await Promise.all(pending.splice(0));
  });
});
