/** The publish lock (publish/lock.ts) on real local D1: one holder at a time, refreshed, broken, released by its holder only. */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { acquireLock, LOCK_LIMITS, type LockOwner, withLock } from "../../publish/lock.js";
import { target } from "./helpers.js";

const owner = (name: string, host = "ci-1", pid = 100): LockOwner => ({ owner: `${name}@${host} pid ${pid}`, host, pid, token: `token-${name}` });
const holderName = async () => (await env.CATALOG.prepare("SELECT owner FROM publish_lock WHERE id = 1").first("owner")) as string | null;
const at = (ms: number) => () => new Date(Date.UTC(2026, 0, 1) + ms);

afterEach(async () => {
  await env.CATALOG.prepare("DELETE FROM publish_lock").run();
});

describe("the publish lock", () => {
  it("goes to exactly one of two publishes that ask at once; the other is refused naming it", async () => {
    const results = await Promise.allSettled([acquireLock(target(), owner("ann"), { now: at(0) }), acquireLock(target(), owner("bo"), { now: at(0) })]);
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    const winner = await holderName();
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(String(lost.reason.message)).toBe(
      `another publish holds the lock: ${winner} (since 2026-01-01T00:00:00.000Z, expires 2026-01-01T00:10:00.000Z); wait for it to finish, or if it died, run again with --break-lock`,
    );
  });

  it("is refreshed by its holder, and a holder whose lock was broken stops at its next refresh", async () => {
    let t = 0;
    const clock = () => new Date(Date.UTC(2026, 0, 1) + t);
    const expiry = async () => (await env.CATALOG.prepare("SELECT expires_at FROM publish_lock").first("expires_at")) as string;
    const lock = await acquireLock(target(), owner("ann"), { now: clock });
    t = 30_000; // not due yet (at most one refresh a minute): the expiry stays
    await lock.refresh();
    expect(await expiry()).toBe("2026-01-01T00:10:00.000Z");
    t = LOCK_LIMITS.refreshEveryMs + 5_000; // due: the expiry moves to a TTL past now
    await lock.refresh();
    expect(await expiry()).toBe(new Date(Date.UTC(2026, 0, 1) + t + LOCK_LIMITS.ttlMs).toISOString());
    // Someone breaks it; the first holder's next due refresh fails, naming who holds it now.
    await acquireLock(target(), owner("bo"), { now: clock, breakLock: true });
    t += LOCK_LIMITS.refreshEveryMs;
    await expect(lock.refresh()).rejects.toThrow(/^the publish lock was taken by bo@ci-1 pid 100 \(since .*\) meanwhile: stopping$/);
  });

  it("is stale when expired, or when its process on this host is gone; a live one needs --break-lock", async () => {
    await acquireLock(target(), owner("ann", "ci-1", 7), { now: at(0) });
    const alive = () => true;
    await expect(acquireLock(target(), owner("bo", "ci-1", 8), { now: at(60_000), alive })).rejects.toThrow(/^another publish holds the lock: ann@ci-1 pid 7/);
    // Same host, its process gone: taken at once.
    const taken = await acquireLock(target(), owner("bo", "ci-1", 8), { now: at(60_000), alive: () => false });
    expect(taken.tookOverFrom).toMatch(/^ann@ci-1 pid 7 /);
    // Another host's process cannot be checked from here: only its expiry frees it.
    await expect(acquireLock(target(), owner("cy", "ci-2", 8), { now: at(60_000 + LOCK_LIMITS.ttlMs - 1), alive: () => false })).rejects.toThrow(/bo@ci-1/);
    expect((await acquireLock(target(), owner("cy", "ci-2", 8), { now: at(60_000 + LOCK_LIMITS.ttlMs + 1) })).tookOverFrom).toMatch(/^bo@ci-1/);
    expect(await holderName()).toBe("cy@ci-2 pid 8");
  });

  it("is released by its holder however the work ends, and never by anyone else", async () => {
    await expect(withLock(target(), owner("ann"), { now: at(0) }, async () => Promise.reject(new Error("publish failed")))).rejects.toThrow("publish failed");
    expect(await holderName()).toBeNull();
    const lock = await acquireLock(target(), owner("ann"), { now: at(0) });
    const intruder = await acquireLock(target(), owner("bo"), { now: at(0), breakLock: true });
    await lock.release(); // ann's release after bo broke the lock leaves bo's
    expect(await holderName()).toBe("bo@ci-1 pid 100");
    await intruder.release();
    expect(await holderName()).toBeNull();
  });
});
