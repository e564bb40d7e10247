/**
 * `npm run simulate-traffic -- --users N --searches-per-user K [--seed S] [--url URL] [--until-verdict] [--check-every U]`
 * drives a running worker with simulated users (scripts/simulate/traffic.ts;
 * WANDS queries and labels from COGR_DATA). With --until-verdict it reads the
 * running experiment's report every U users (ADMIN_TOKEN) and stops at the
 * first verdict, printing how many users it took.
 */
import { dataDir } from "../training/data/dataset.js";
import { adminClient, DEFAULT_URL } from "./admin-client.js";
import { intOption, parseCli, runCli } from "./cli.js";
import { untilVerdict } from "./simulate/experiment-run.js";
import { loadSimulationData, type SimulationCounts, simulateUsers } from "./simulate/traffic.js";

const USAGE = "npm run simulate-traffic -- --users N --searches-per-user K [--seed S] [--url URL] [--until-verdict] [--check-every U] [--concurrency C]";

runCli(async () => {
  const args = parseCli(
    {
      users: { type: "string" },
      "searches-per-user": { type: "string" },
      seed: { type: "string" },
      url: { type: "string" },
      "until-verdict": { type: "boolean" },
      "check-every": { type: "string" },
      concurrency: { type: "string" },
    },
    USAGE,
  );
  const url = (args.url ?? DEFAULT_URL).replace(/\/+$/, "");
  const users = intOption("users", args.users, 1000, 1);
  const searchesPerUser = intOption("searches-per-user", args["searches-per-user"], 3, 1);
  const seed = intOption("seed", args.seed, 1);
  const concurrency = intOption("concurrency", args.concurrency, 16, 1);
  const data = await loadSimulationData(dataDir());
  const started = Date.now();
  if (args["until-verdict"]) {
    const outcome = await untilVerdict(adminClient(url), url, data, {
      seed,
      maxUsers: users,
      searchesPerUser,
      concurrency,
      checkEvery: intOption("check-every", args["check-every"], 50, 1),
    });
    console.log(
      outcome.verdict === "no detectable difference yet"
        ? `no verdict after ${outcome.users} users (${outcome.counts.searches} searches, ${outcome.counts.clicks} clicks)`
        : `${outcome.verdict}${outcome.winner !== null ? ` (round ${outcome.winner})` : ""} after ${outcome.users} users (${outcome.counts.searches} searches, ${outcome.counts.clicks} clicks)`,
    );
    return;
  }
  const counts: SimulationCounts = { searches: 0, clicks: 0, failed: 0 };
  await simulateUsers(url, data, { seed, from: 0, to: users, searchesPerUser, concurrency }, counts);
  console.log(
    `${users} users: ${counts.searches} searches, ${counts.clicks} clicks, ${counts.failed} failed, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
});
