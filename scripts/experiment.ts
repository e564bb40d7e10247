/**
 * `npm run experiment -- start|ramp|promote|rollback|resume|status …` against the
 * admin API of a running worker (`--url`, default http://127.0.0.1:8787;
 * ADMIN_TOKEN from the environment).
 *
 *   start --design ab --arm 3=90 --arm 4=10 [--control 3] [--id ID] [--force]
 *   start --design interleave --control 3 --treatment 4 [--share 100] [--force]
 *   ramp --arm 3=50 --arm 4=50 [--id ID]      (percent; treatments only grow)
 *   promote [--round N] [--id ID]   rollback [--id ID]   status [--id ID]
 *   resume [--count-suspects] [--id ID]   (after a guardrail pause; by default the
 *                                          pause's suspect networks stop counting)
 *
 * Offline gate: `start` refuses a treatment whose recorded dev F1 is below
 * control's (GET /v1/rounds), unless --force.
 */
import { adminClient, DEFAULT_URL } from "./admin-client.js";
import { intOption, parseCli, runCli, UsageError } from "./cli.js";

const USAGE =
  "npm run experiment -- start --design ab|interleave (--arm ROUND=PERCENT … | --control R --treatment R [--share PERCENT]) [--id ID] [--force] | ramp --arm ROUND=PERCENT … | promote [--round N] | rollback | resume [--count-suspects] | status  [--id ID] [--url URL]";

type Experiment = { id: string; design: string; state: string; arms: Array<{ round: number; weight: number }>; control: number; winner?: number };

function arms(values: readonly string[] | undefined): Array<{ round: number; weight: number }> {
  if (!values || values.length < 2) throw new UsageError(`give at least two --arm ROUND=PERCENT\nusage: ${USAGE}`);
  return values.map((v) => {
    const m = /^(\d+)=(\d+(?:\.\d{1,2})?)$/.exec(v);
    if (!m) throw new UsageError(`--arm takes ROUND=PERCENT (e.g. 3=90), got ${JSON.stringify(v)}`);
    return { round: Number(m[1]), weight: Math.round(Number(m[2]) * 100) };
  });
}

async function devF1(url: string): Promise<Map<number, number>> {
  const res = await fetch(`${url}/v1/rounds`);
  const body = (await res.json()) as { rounds: Array<{ round: number; metrics: { dev?: { f1?: number } } }> };
  return new Map(body.rounds.filter((r) => typeof r.metrics.dev?.f1 === "number").map((r) => [r.round, r.metrics.dev?.f1 as number]));
}

function offlineGate(f1: Map<number, number>, control: number, treatments: number[]): void {
  const c = f1.get(control);
  for (const t of treatments) {
    const tf = f1.get(t);
    if (c === undefined || tf === undefined)
      throw new Error(`offline gate: round ${c === undefined ? control : t} has no recorded dev F1; pass --force to start anyway`);
    if (tf < c)
      throw new Error(`offline gate: round ${t}'s dev F1 ${tf.toFixed(4)} is below control round ${control}'s ${c.toFixed(4)}; pass --force to start anyway`);
  }
}

const line = (e: Experiment) =>
  `${e.id}: ${e.design} ${e.state}${e.winner !== undefined ? ` (winner round ${e.winner})` : ""}; control round ${e.control}; arms ${e.arms.map((a) => `${a.round}=${a.weight / 100}%`).join(" ")}`;

runCli(async () => {
  const [command, ...rest] = process.argv.slice(2);
  process.argv.splice(2, process.argv.length, ...rest);
  const args = parseCli(
    {
      design: { type: "string" },
      arm: { type: "string", multiple: true },
      control: { type: "string" },
      treatment: { type: "string" },
      share: { type: "string" },
      round: { type: "string" },
      id: { type: "string" },
      url: { type: "string" },
      force: { type: "boolean" },
      "count-suspects": { type: "boolean" },
    },
    USAGE,
  );
  const client = adminClient(args.url ?? DEFAULT_URL);
  const current = async (): Promise<Experiment> => {
    if (args.id) return ((await client.call("GET", `/admin/experiments/${encodeURIComponent(args.id)}`)) as { experiment: Experiment }).experiment;
    const list = (await client.call<{ experiments: Experiment[] }>("GET", "/admin/experiments")).experiments;
    const running = list.find((e) => e.state === "running" || e.state === "paused") ?? list[0];
    if (!running) throw new Error("no experiment yet: start one");
    return running;
  };
  switch (command) {
    case "start": {
      let body: Record<string, unknown>;
      if (args.design === "ab") {
        const a = arms(args.arm);
        const control = args.control !== undefined ? intOption("control", args.control, 0) : (a[0] as { round: number }).round;
        if (!args.force)
          offlineGate(
            await devF1(client.url),
            control,
            a.map((x) => x.round).filter((r) => r !== control),
          );
        body = { design: "ab", arms: a, control };
      } else if (args.design === "interleave") {
        if (args.control === undefined || args.treatment === undefined) throw new UsageError(`interleave needs --control and --treatment\nusage: ${USAGE}`);
        const control = intOption("control", args.control, 0);
        const treatment = intOption("treatment", args.treatment, 0);
        if (!args.force) offlineGate(await devF1(client.url), control, [treatment]);
        body = { design: "interleave", control, treatment, shareBp: Math.round(Number(args.share ?? "100") * 100) };
      } else {
        throw new UsageError(`--design must be ab or interleave\nusage: ${USAGE}`);
      }
      if (args.id) body.id = args.id;
      const { experiment } = await client.call<{ experiment: Experiment }>("POST", "/admin/experiments", body);
      console.log(`started ${line(experiment)}`);
      return;
    }
    case "ramp": {
      const e = await current();
      const { experiment } = await client.call<{ experiment: Experiment }>("PATCH", `/admin/experiments/${e.id}`, { arms: arms(args.arm) });
      console.log(`ramped ${line(experiment)}`);
      return;
    }
    case "promote":
    case "rollback": {
      const e = await current();
      const body = command === "promote" && args.round !== undefined ? { round: intOption("round", args.round, 0) } : {};
      const { experiment } = await client.call<{ experiment: Experiment }>("POST", `/admin/experiments/${e.id}/${command}`, body);
      console.log(`${command === "promote" ? "promoted" : "rolled back"} ${line(experiment)}`);
      return;
    }
    case "resume": {
      const e = await current();
      const { experiment } = await client.call<{ experiment: Experiment }>("POST", `/admin/experiments/${e.id}/resume`, {
        exclude: !args["count-suspects"],
      });
      console.log(`resumed ${line(experiment)}`);
      return;
    }
    case "status": {
      console.log(line(await current()));
      return;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command ?? "")}\nusage: ${USAGE}`);
  }
});
