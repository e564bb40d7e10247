/**
 * Alg. 2 across verl jobs (`npm run coevolve -- --backend verl`): SFT (Alg. 1),
 * then R iterations of query RL against the frozen item index and item RL
 * against the frozen query index, each followed by merge → serve → re-index
 * → evaluate, so every phase yields a normal round artifact.
 *
 * Rounds: B is the extractor round the SFT targets come from; B + 1 is the
 * SFT models' index; iteration i adds round B + 2i (new query model, items
 * kept: the frozen query index of the item phase) and B + 2i + 1 (new item
 * model). The plan is a list of shell commands; jobs go through the runner
 * template, local steps run as they are. State is saved after every step,
 * so a rerun resumes at the first unfinished one.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CoevolveOptions {
  readonly rounds: number;
  readonly fromRound: number;
  readonly baseModel: string;
  /** Runs a job script: `{script}` is replaced, e.g. `bash {script}` or `ray job submit … -- bash {script}`. */
  readonly runner: string;
  readonly jobsDir: string;
  readonly queryPort: number;
  readonly itemPort: number;
}

export interface Step {
  readonly id: string;
  readonly kind: "local" | "job";
  readonly command: string;
}

const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function planCoevolve(o: CoevolveOptions): Step[] {
  const J = o.jobsDir;
  const steps: Step[] = [];
  const local = (id: string, command: string) => steps.push({ id, kind: "local", command });
  const job = (id: string, script: string) => steps.push({ id, kind: "job", command: o.runner.split("{script}").join(q(script)) });
  const url = (port: number) => `http://127.0.0.1:${port}/v1`;
  const serve = (bundle: string, model: string, name: string, port: number) =>
    `HF_DIR=${q(model)} SERVED_NAME=${name} PORT=${port} bash ${q(join(bundle, "serve.sh"))} --background`;
  const stop = (bundle: string, port: number) => `PORT=${port} bash ${q(join(bundle, "serve.sh"))} --stop`;
  const evaluate = (round: number) => `npm run -s eval -- --method keywords --round ${round} --json > ${q(join(J, `eval-r${round}.json`))}`;
  const index = (args: string) => `npm run -s index -- --generator vllm --queries all ${args}`;
  const models = (name: string) => join(J, "models", name);

  const sft = join(J, "sft");
  let cur = o.fromRound + 1;
  local("sft/bundle", `npm run -s train -- --backend verl --side sft --round ${o.fromRound} --out ${q(sft)} --model ${q(o.baseModel)}`);
  for (const side of ["query", "item"] as const) {
    job(`sft/${side}/run`, join(sft, `run-sft-${side}.sh`));
    local(`sft/${side}/merge`, `bash ${q(join(sft, "merge.sh"))} ${q(join(sft, "checkpoints", `sft-${side}`))} ${q(models(`${side}-0`))}`);
  }
  local("sft/serve", `${serve(sft, models("item-0"), "cogr-item-0", o.itemPort)} && ${serve(sft, models("query-0"), "cogr-query-0", o.queryPort)}`);
  local(
    `r${cur}/index`,
    index(
      `--base-url ${url(o.itemPort)} --model cogr-item-0 --query-base-url ${url(o.queryPort)} --query-model cogr-query-0 --round ${cur} --from-round ${o.fromRound}`,
    ),
  );
  local("sft/stop", `${stop(sft, o.itemPort)}; ${stop(sft, o.queryPort)}`);
  local(`r${cur}/eval`, evaluate(cur));

  for (let i = 1; i <= o.rounds; i++) {
    for (const side of ["query", "item"] as const) {
      const b = join(J, `${side}-${i}`);
      const name = `cogr-${side}-${i}`;
      local(
        `i${i}/${side}/bundle`,
        `npm run -s train -- --backend verl --side ${side} --round ${cur} --out ${q(b)} --model ${q(models(`${side}-${i - 1}`))} --served-name ${name}`,
      );
      local(`i${i}/${side}/reward-up`, `bash ${q(join(b, "reward-service.sh"))} --background`);
      job(`i${i}/${side}/run`, join(b, "run.sh"));
      local(`i${i}/${side}/reward-down`, `bash ${q(join(b, "reward-service.sh"))} --stop`);
      local(`i${i}/${side}/merge`, `bash ${q(join(b, "merge.sh"))} ${q(join(b, "checkpoints"))} ${q(models(`${side}-${i}`))}`);
      const next = cur + 1;
      if (side === "query") {
        local(`i${i}/query/serve`, serve(b, models(`query-${i}`), name, o.queryPort));
        local(`r${next}/index`, index(`--keep-items --base-url ${url(o.queryPort)} --query-model ${name} --round ${next} --from-round ${cur}`));
        local(`i${i}/query/stop`, stop(b, o.queryPort));
      } else {
        const qb = join(J, `query-${i}`);
        local(`i${i}/item/serve`, `${serve(b, models(`item-${i}`), name, o.itemPort)} && ${serve(qb, models(`query-${i}`), `cogr-query-${i}`, o.queryPort)}`);
        local(
          `r${next}/index`,
          index(
            `--base-url ${url(o.itemPort)} --model ${name} --query-base-url ${url(o.queryPort)} --query-model cogr-query-${i} --round ${next} --from-round ${cur}`,
          ),
        );
        local(`i${i}/item/stop`, `${stop(b, o.itemPort)}; ${stop(qb, o.queryPort)}`);
      }
      local(`r${next}/eval`, evaluate(next));
      cur = next;
    }
  }
  return steps;
}

const STATE_FORMAT = "cogr-coevolve-state";
const STATE_VERSION = 1;

export interface CoevolveState {
  readonly format: typeof STATE_FORMAT;
  readonly version: number;
  readonly plan: string;
  readonly done: string[];
  readonly failed: { readonly id: string; readonly exitCode: number; readonly at: string } | null;
}

export const planHash = (steps: readonly Step[]) => createHash("sha256").update(JSON.stringify(steps)).digest("hex");

export class StepFailed extends Error {
  constructor(
    readonly step: Step,
    readonly exitCode: number,
  ) {
    super(`step ${step.id} failed with exit code ${exitCode}: fix it and rerun the same command to resume there`);
  }
}

export function loadState(path: string, steps: readonly Step[]): CoevolveState {
  const plan = planHash(steps);
  if (!existsSync(path)) return { format: STATE_FORMAT, version: STATE_VERSION, plan, done: [], failed: null };
  const s = JSON.parse(readFileSync(path, "utf8")) as Partial<CoevolveState>;
  if (s.format !== STATE_FORMAT || s.version !== STATE_VERSION) throw new Error(`${path}: not a ${STATE_FORMAT} v${STATE_VERSION} file`);
  if (s.plan !== plan) throw new Error(`${path} records another plan (other options): pass the same options, or delete it to start over`);
  return s as CoevolveState;
}

function save(path: string, state: CoevolveState): void {
  writeFileSync(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** Runs the steps not yet done, saving after each; a failing step is recorded and stops the run. */
export async function runPlan(
  steps: readonly Step[],
  statePath: string,
  exec: (step: Step) => Promise<number> | number,
  log: (line: string) => void = () => {},
): Promise<CoevolveState> {
  let state = loadState(statePath, steps);
  const done = new Set(state.done);
  for (const [j, step] of steps.entries()) {
    if (done.has(step.id)) continue;
    log(`[${j + 1}/${steps.length}] ${step.id}: ${step.command}`);
    const code = await exec(step);
    if (code !== 0) {
      state = { ...state, failed: { id: step.id, exitCode: code, at: new Date().toISOString() } };
      save(statePath, state);
      throw new StepFailed(step, code);
    }
    done.add(step.id);
    state = { ...state, done: [...state.done, step.id], failed: null };
    save(statePath, state);
  }
  return state;
}
