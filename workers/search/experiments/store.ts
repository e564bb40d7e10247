/**
 * Experiments in D1 (the source of truth, every change recorded) and the
 * serving configuration mirrored to KV for the hot path.
 *
 * Each change is one D1 batch (a transaction): the experiment row is updated
 * only if it is still in the state the change expects, and the change row is
 * inserted only if that update happened (`WHERE changes() = 1`), so a change
 * is applied whole or not at all, and two racing admins cannot both end one
 * experiment. The KV mirror is rewritten after every change, and by the cron
 * handler every minute, from D1. One experiment is live (running or paused)
 * at a time: the unique index refuses a second running one, and a start is
 * refused in the same transaction while one is paused.
 */
import { type Experiment, type ExperimentState, type LiveExperiment, SERVING_CONFIG_KEY, SERVING_CONFIG_VERSION, type ServingConfig } from "./config.js";

import type { ChangeAction } from "./lifecycle.js";

export type { ChangeAction };
export { SERVING_CONFIG_KEY, SERVING_CONFIG_VERSION, type ServingConfig };

export interface Change {
  readonly seq: number;
  readonly experimentId: string;
  readonly at: string;
  readonly actor: string;
  readonly action: ChangeAction;
  readonly reason: string;
  readonly before: Experiment | null;
  readonly after: Experiment;
}

export class ConflictError extends Error {}

const live = (e: Experiment): LiveExperiment => ({
  id: e.id,
  design: e.design,
  salt: e.salt,
  arms: e.arms,
  control: e.control,
  interleaveShareBp: e.interleaveShareBp,
});

export class ExperimentStore {
  constructor(
    private readonly db: D1Database,
    private readonly kv: KVNamespace,
  ) {}

  async list(): Promise<Experiment[]> {
    const { results } = await this.db.prepare("SELECT config FROM experiments ORDER BY created_at DESC").all<{ config: string }>();
    return results.map((r) => JSON.parse(r.config) as Experiment);
  }

  async get(id: string): Promise<Experiment | null> {
    const row = await this.db.prepare("SELECT config FROM experiments WHERE id = ?").bind(id).first<{ config: string }>();
    return row ? (JSON.parse(row.config) as Experiment) : null;
  }

  async running(): Promise<Experiment | null> {
    const row = await this.db.prepare("SELECT config FROM experiments WHERE state = 'running'").first<{ config: string }>();
    return row ? (JSON.parse(row.config) as Experiment) : null;
  }

  async changes(id: string): Promise<Change[]> {
    const { results } = await this.db
      .prepare("SELECT seq, experiment_id, at, actor, action, reason, before, after FROM experiment_changes WHERE experiment_id = ? ORDER BY seq")
      .bind(id)
      .all<Record<string, string | number | null>>();
    return results.map((r) => ({
      seq: Number(r.seq),
      experimentId: String(r.experiment_id),
      at: String(r.at),
      actor: String(r.actor),
      action: r.action as ChangeAction,
      reason: String(r.reason),
      before: r.before ? (JSON.parse(String(r.before)) as Experiment) : null,
      after: JSON.parse(String(r.after)) as Experiment,
    }));
  }

  /** Inserts a running experiment; a second live one (running or paused) is refused (ConflictError). */
  async start(e: Experiment, actor: string, reason: string): Promise<void> {
    const at = e.createdAt;
    let inserted: D1Result | undefined;
    try {
      [inserted] = await this.db.batch([
        this.db
          .prepare(
            "INSERT INTO experiments (id, state, config, sequential, created_at, updated_at) SELECT ?, 'running', ?, '{}', ?, ? WHERE NOT EXISTS (SELECT 1 FROM experiments WHERE state = 'paused')",
          )
          .bind(e.id, JSON.stringify(e), at, at),
        this.changeRow(e.id, at, actor, "start", reason, null, e, true),
      ]);
    } catch (err) {
      throw conflictOf(err, `experiment ${e.id} exists`);
    }
    if ((inserted?.meta.changes ?? 0) !== 1) throw new ConflictError("an experiment is paused: resume it or end it first");
    await this.mirror();
  }

  /** Applies a change atomically, guarded by the state and version read; ConflictError when it changed meanwhile. */
  async change(before: Experiment, after: Experiment, action: ChangeAction, actor: string, reason: string): Promise<void> {
    let update: D1Result | undefined;
    try {
      [update] = await this.db.batch([
        this.db
          .prepare("UPDATE experiments SET state = ?, config = ?, updated_at = ? WHERE id = ? AND state = ? AND updated_at = ?")
          .bind(after.state, JSON.stringify(after), after.updatedAt, before.id, before.state, before.updatedAt),
        this.changeRow(before.id, after.updatedAt, actor, action, reason, before, after, true),
      ]);
    } catch (err) {
      throw conflictOf(err, `experiment ${before.id} conflicts with another`);
    }
    if ((update?.meta.changes ?? 0) !== 1)
      throw new ConflictError(`experiment ${before.id} changed meanwhile (or is no longer ${before.state}): read it again`);
    await this.mirror();
  }

  async sequentialState(id: string): Promise<Record<string, number>> {
    const row = await this.db.prepare("SELECT sequential FROM experiments WHERE id = ?").bind(id).first<{ sequential: string }>();
    return row ? (JSON.parse(row.sequential) as Record<string, number>) : {};
  }

  async saveSequentialState(id: string, state: Record<string, number>): Promise<void> {
    await this.db.prepare("UPDATE experiments SET sequential = ? WHERE id = ?").bind(JSON.stringify(state), id).run();
  }

  /** The serving configuration as D1 says it is: a paused experiment serves its control to everyone, outside the experiment. */
  async servingConfig(): Promise<ServingConfig> {
    const running = await this.running();
    const last = await this.db
      .prepare("SELECT config FROM experiments WHERE state IN ('paused', 'promoted', 'rolled_back') ORDER BY state = 'paused' DESC, updated_at DESC LIMIT 1")
      .first<{ config: string }>();
    const e = last ? (JSON.parse(last.config) as Experiment) : null;
    const defaultRound = e ? (e.state === "promoted" ? (e.winner ?? null) : e.control) : null;
    return { version: SERVING_CONFIG_VERSION, experiment: running ? live(running) : null, defaultRound, updatedAt: new Date().toISOString() };
  }

  /** Rewrites the KV mirror from D1. */
  async mirror(): Promise<ServingConfig> {
    const config = await this.servingConfig();
    await this.kv.put(SERVING_CONFIG_KEY, JSON.stringify(config));
    return config;
  }

  private changeRow(
    id: string,
    at: string,
    actor: string,
    action: ChangeAction,
    reason: string,
    before: Experiment | null,
    after: Experiment,
    onlyIfUpdated = false,
  ) {
    const values = [id, at, actor, action, reason, before ? JSON.stringify(before) : null, JSON.stringify(after)];
    return onlyIfUpdated
      ? this.db
          .prepare("INSERT INTO experiment_changes (experiment_id, at, actor, action, reason, before, after) SELECT ?, ?, ?, ?, ?, ?, ? WHERE changes() = 1")
          .bind(...values)
      : this.db
          .prepare("INSERT INTO experiment_changes (experiment_id, at, actor, action, reason, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)")
          .bind(...values);
  }
}

/** A unique-index violation is a conflict (a second running experiment, an id taken); anything else is storage failing. */
function conflictOf(err: unknown, taken: string): unknown {
  const m = (err as Error).message;
  if (!/UNIQUE|constraint/i.test(m)) return err;
  return new ConflictError(/experiments_one_running|state/.test(m) ? "another experiment is running: end it first" : taken);
}

export const ENDED_STATES: ReadonlySet<ExperimentState> = new Set(["promoted", "rolled_back", "stopped"]);
