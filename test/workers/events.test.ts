/**
 * The events learning from clicks reads (issue 23 §3), in workerd on real
 * local D1: the normalised query and the hashed user key on every search,
 * and the cron's retention window.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { normalizeKeyword } from "../../core/normalize.js";
import type { Env } from "../../workers/search/bindings.js";
import { hashUserKey, USER_HASH } from "../../workers/search/experiments/user-hash.js";
import { scheduled } from "../../workers/search/index.js";
import { get, publish, testRounds } from "./helpers.js";

const rounds = await testRounds();
const db = env.EVENTS as D1Database;
type Row = { request_id: string; user_key: string; query: string | null; shown: string };

async function search(q: string, user: string, overrides: Record<string, unknown> = {}) {
  const res = await get(`/v1/search?q=${encodeURIComponent(q)}&limit=5`, overrides, { "x-user-id": user });
  expect(res.status).toBe(200);
  const { requestId } = (await res.json()) as { requestId: string };
  const row = await db.prepare("SELECT request_id, user_key, query, shown FROM searches WHERE request_id = ?").bind(requestId).first<Row>();
  expect(row).not.toBeNull();
  return row as Row;
}

beforeAll(async () => {
  await publish(rounds.synthetic0);
});

describe("search events", () => {
  it("store the query as core normalises it", async () => {
    const row = await search("  Desk, for KIDS!  ", "alice");
    expect(row.query).toBe("desk for kids");
    expect(row.query).toBe(normalizeKeyword("  Desk, for KIDS!  "));
  });

  it("store the user key hashed: never the key, the same hash for the same key, another for another key or pepper", async () => {
    const a1 = await search("desk", "alice");
    const a2 = await search("chair", "alice");
    const b = await search("desk", "bob");
    expect(a1.user_key).toMatch(new RegExp(`^[0-9a-f]{${USER_HASH.hexChars}}$`));
    expect(a1.user_key).not.toContain("alice");
    expect(a1.user_key).toBe(await hashUserKey("h:alice", undefined));
    expect(a2.user_key).toBe(a1.user_key);
    expect(b.user_key).not.toBe(a1.user_key);
    const peppered = await search("desk", "alice", { USER_KEY_PEPPER: "a-secret-pepper" });
    expect(peppered.user_key).toBe(await hashUserKey("h:alice", "a-secret-pepper"));
    expect(peppered.user_key).not.toBe(a1.user_key);
    const raw = await db.prepare("SELECT COUNT(*) AS n FROM searches WHERE user_key LIKE 'h:%' OR user_key LIKE 'c:%'").first<{ n: number }>();
    expect(raw?.n).toBe(0);
  });
});

describe("retention", () => {
  const day = 86_400_000;
  const now = Date.UTC(2026, 4, 1);

  /** `n` searches (with one feedback each) at `at`, tagged by request id prefix. */
  async function seed(tag: string, n: number, at: number) {
    await db
      .prepare(
        `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?2)
         INSERT INTO searches (request_id, at, round, user_key, query, latency_ms, total, zero_result, error, keyword_source, fallback, shown)
         SELECT ?1 || '-' || i, ?3, 0, 'u', 'q', 1, 1, 0, 0, 'raw', 0, '[["i1",1]]' FROM s`,
      )
      .bind(tag, n, at)
      .run();
    await db
      .prepare(`INSERT INTO feedback (request_id, item_id, type, at) SELECT request_id, 'i1', 'click', at + 1 FROM searches WHERE request_id LIKE ?1 || '-%'`)
      .bind(tag)
      .run();
  }
  const count = async (table: string, tag: string) =>
    (await db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE request_id LIKE ?1 || '-%'`).bind(tag).first<{ n: number }>())?.n;

  it("the cron deletes events older than the window (default 90 days) in batches, and keeps the rest", async () => {
    await seed("old", 12_000, now - 91 * day);
    await seed("recent", 30, now - 89 * day);
    await scheduled(env as unknown as Env, now);
    expect(await count("searches", "old")).toBe(0);
    expect(await count("feedback", "old")).toBe(0);
    expect(await count("searches", "recent")).toBe(30);
    expect(await count("feedback", "recent")).toBe(30);
  });

  it("EVENTS_RETENTION_DAYS sets the window", async () => {
    await seed("week", 10, now - 8 * day);
    await seed("days", 10, now - 6 * day);
    await scheduled({ ...(env as unknown as Env), EVENTS_RETENTION_DAYS: "7" }, now);
    expect(await count("searches", "week")).toBe(0);
    expect(await count("feedback", "week")).toBe(0);
    expect(await count("searches", "days")).toBe(10);
  });
});
