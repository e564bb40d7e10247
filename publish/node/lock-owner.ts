/** Who takes the publish lock from Node (publish/lock.ts): this user, host and process, with a random token. */
import { randomUUID } from "node:crypto";
import { hostname, userInfo } from "node:os";
import type { LockOwner } from "../lock.js";

export function lockOwner(): LockOwner {
  const host = hostname();
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (some containers): the host and pid still name the holder
  }
  return { owner: `${user}@${host} pid ${process.pid}`, host, pid: process.pid, token: randomUUID() };
}

/** Whether a process of this host runs (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
