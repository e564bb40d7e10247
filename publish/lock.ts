/**
 * The publish lock: one row in the catalogue (migrations/catalog/0004_publish_lock.sql) that a
 * publish or unpublish holds while it writes, so two of them never interleave their batches on
 * one deployment. It works through any PublishTarget (the bindings locally, the wrangler CLI
 * remotely): taking it is one conditional upsert, then one read of who holds it.
 *
 * A holder refreshes its expiry as it goes; a crashed holder's lock lapses at its expiry, or at
 * once when it ran on this host and its process is gone; `--break-lock` takes a live-looking one.
 */
import { sqlText } from "./sql.js";
import type { PublishTarget } from "./target.js";

export const LOCK_LIMITS = {
  /** A lock not refreshed for this long is stale: its holder is taken for dead. */
  ttlMs: 10 * 60_000,
  /** How often a holder pushes its expiry out (at most once per committed batch). */
  refreshEveryMs: 60_000,
} as const;

export interface LockOwner {
  /** For people: user@host pid N. */
  readonly owner: string;
  readonly host: string;
  readonly pid: number;
  /** Random per holder. */
  readonly token: string;
}

export interface LockOptions {
  /** Take the lock even from a holder that looks alive (`--break-lock`). */
  readonly breakLock?: boolean;
  /** Whether a process of this host is running (a dead one's lock is stale at once). */
  readonly alive?: (pid: number) => boolean;
  readonly now?: () => Date;
}

export class LockError extends Error {}

interface Holder {
  readonly owner: string;
  readonly token: string;
  readonly host: string;
  readonly pid: number;
  readonly acquiredAt: string;
  readonly expiresAt: string;
}

async function holder(target: PublishTarget): Promise<Holder | null> {
  const text = (await target.catalog.scalar(
    "SELECT json_object('owner', owner, 'token', token, 'host', host, 'pid', pid, 'acquiredAt', acquired_at, 'expiresAt', expires_at) FROM publish_lock WHERE id = 1",
  )) as string | null;
  return text === null ? null : (JSON.parse(text) as Holder);
}

export interface HeldLock {
  /** Pushes the expiry out when due; throws when someone broke the lock meanwhile. */
  refresh(): Promise<void>;
  release(): Promise<void>;
  /** The stale holder this lock was taken from, if any (for a line to the operator). */
  readonly tookOverFrom: string | null;
}

export async function acquireLock(target: PublishTarget, me: LockOwner, opts: LockOptions = {}): Promise<HeldLock> {
  const now = opts.now ?? (() => new Date());
  const before = await holder(target);
  const t = now();
  const deadHere = before !== null && before.host === me.host && before.token !== me.token && opts.alive !== undefined && !opts.alive(before.pid);
  const stale = before === null || before.expiresAt < t.toISOString() || deadHere;
  if (before && !stale && before.token !== me.token && !opts.breakLock) throw refusal(before);
  const values = (at: Date) =>
    `(1, ${sqlText(me.owner)}, ${sqlText(me.token)}, ${sqlText(me.host)}, ${me.pid}, ${sqlText(t.toISOString())}, ${sqlText(new Date(at.getTime() + LOCK_LIMITS.ttlMs).toISOString())})`;
  // The upsert overwrites only the holder read above (or an empty slot): a publish that took the
  // lock in between keeps it, and the read-back below then names it.
  const guard = before === null ? "0" : `publish_lock.token = ${sqlText(before.token)}`;
  await target.catalog.execute([
    `INSERT INTO publish_lock (id, owner, token, host, pid, acquired_at, expires_at) VALUES ${values(t)} ` +
      `ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, token = excluded.token, host = excluded.host, pid = excluded.pid, ` +
      `acquired_at = excluded.acquired_at, expires_at = excluded.expires_at WHERE ${guard}`,
  ]);
  const after = await holder(target);
  if (after?.token !== me.token) throw refusal(after ?? (before as Holder));
  let refreshed = t.getTime();
  return {
    tookOverFrom: before && before.token !== me.token ? describe(before) : null,
    async refresh() {
      const at = now();
      if (at.getTime() - refreshed < LOCK_LIMITS.refreshEveryMs) return;
      const expires = new Date(at.getTime() + LOCK_LIMITS.ttlMs).toISOString();
      await target.catalog.execute([`UPDATE publish_lock SET expires_at = ${sqlText(expires)} WHERE id = 1 AND token = ${sqlText(me.token)}`]);
      const h = await holder(target);
      if (h?.token !== me.token) throw new LockError(`the publish lock was taken by ${h ? describe(h) : "no one (it was removed)"} meanwhile: stopping`);
      refreshed = at.getTime();
    },
    async release() {
      await target.catalog.execute([`DELETE FROM publish_lock WHERE id = 1 AND token = ${sqlText(me.token)}`]);
    },
  };
}

const describe = (h: Holder) => `${h.owner} (since ${h.acquiredAt}, expires ${h.expiresAt})`;

function refusal(h: Holder): LockError {
  return new LockError(`another publish holds the lock: ${describe(h)}; wait for it to finish, or if it died, run again with --break-lock`);
}

/** Runs `work` holding the lock, refreshed through the `refresh` it is given, and released however it ends. */
export async function withLock<T>(target: PublishTarget, me: LockOwner, opts: LockOptions, work: (lock: HeldLock) => Promise<T>): Promise<T> {
  const lock = await acquireLock(target, me, opts);
  try {
    return await work(lock);
  } finally {
    await lock.release();
  }
}
