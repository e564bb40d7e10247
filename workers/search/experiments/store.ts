/**
 * Experiments in D1 (the source of truth, every change recorded) and the
 * serving configuration mirrored to KV for the hot path.
 *
 * Each change is one D1 batch (a transaction): the experiment row is updated
 * only if it is still in the state the change expects, and the change row is
 * inserted only if that update happened (`WHERE changes() = 1`), so a change
 * is applied whole or not at all, and two racing admins cannot both end one
 * experiment. The KV mirror is rewritten after every change, and by the cron
 * handler every minute, from D1.
 */
import { type Experiment, type ExperimentState, type LiveExperiment, SERVING_CONFIG_KEY, SERVING_CONFIG_VERSION, type ServingConfig } from "./config.js";

export { SERVING_CONFIG_KEY, SERVING_CONFIG_VERSION, type ServingConfig };

export type ChangeAction = "start" | "ramp" | "promote" | "rollback" | "stop";

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

  /** Inserts a running experiment; a second running one is refused by the database (ConflictError). */
  async start(e: Experiment, actor: string, reason: string): Promise<void> {
    const at = e.createdAt;
    try {
      await this.db.batch([
        this.db
          .prepare("INSERT INTO experiments (id, state, config, sequential, created_at, updated_at) VALUES (?, 'running', ?, '{}', ?, ?)")
          .bind(e.id, JSON.stringify(e), at, at),
        this.changeRow(e.id, at, actor, "start", reason, null, e),
      ]);
    } catch (err) {
      const m = (err as Error).message;
      if (/UNIQUE|constraint/i.test(m))
        throw new ConflictError(/experiments_one_running|state/.test(m) ? "another experiment is running: end it first" : `experiment ${e.id} exists`);
      throw err;
    }
    await this.mirror();
  }

  /** Applies a change to a running experiment atomically; ConflictError when it is no longer running as read. */
  async change(before: Experiment, after: Experiment, action: ChangeAction, actor: string, reason: string): Promise<void> {
    const [update] = await this.db.batch([
      this.db
        .prepare("UPDATE experiments SET state = ?, config = ?, updated_at = ? WHERE id = ? AND state = 'running' AND updated_at = ?")
        .bind(after.state, JSON.stringify(after), after.updatedAt, before.id, before.updatedAt),
      this.changeRow(before.id, after.updatedAt, actor, action, reason, before, after, true),
    ]);
    if ((update?.meta.changes ?? 0) !== 1) throw new ConflictError(`experiment ${before.id} changed meanwhile (or is no longer running): read it again`);
    await this.mirror();
  }

  async sequentialState(id: string): Promise<Record<string, number>> {
    const row = await this.db.prepare("SELECT sequential FROM experiments WHERE id = ?").bind(id).first<{ sequential: string }>();
    return row ? (JSON.parse(row.sequential) as Record<string, number>) : {};
  }

  async saveSequentialState(id: string, state: Record<string, number>): Promise<void> {
    await this.db.prepare("UPDATE experiments SET sequential = ? WHERE id = ?").bind(JSON.stringify(state), id).run();
  }

  /** The serving configuration as D1 says it is. */
  async servingConfig(): Promise<ServingConfig> {
    const running = await this.running();
    const ended = await this.db
      .prepare("SELECT config FROM experiments WHERE state IN ('promoted', 'rolled_back') ORDER BY updated_at DESC LIMIT 1")
      .first<{ config: string }>();
    const last = ended ? (JSON.parse(ended.config) as Experiment) : null;
    const defaultRound = last ? (last.state === "promoted" ? (last.winner ?? null) : last.control) : null;
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

export const ENDED_STATES: ReadonlySet<ExperimentState> = new Set(["promoted", "rolled_back", "stopped"]);
