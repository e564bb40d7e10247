import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../../workers/search/bindings.js";
import type { TestRounds } from "../support/test-rounds.js";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      readonly TEST_MIGRATIONS: { readonly catalog: D1Migration[]; readonly shard: D1Migration[] };
      readonly TEST_ROUNDS: TestRounds;
      readonly TEST_LLM_URL: string;
    }
  }
}
