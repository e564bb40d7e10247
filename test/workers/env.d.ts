import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../../workers/search/bindings.js";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      readonly TEST_MIGRATIONS: { readonly catalog: D1Migration[]; readonly shard: D1Migration[]; readonly events: D1Migration[] };
      /** Where the Node-built rounds are served (GET /rounds.json → TestRounds); see testRounds(). */
      readonly TEST_FIXTURES_URL: string;
      readonly TEST_LLM_URL: string;
      /** The RATE_LIMITER binding's limit per client in the tests (vitest.config.ts). */
      readonly TEST_RATE_LIMIT: number;
      /** The IP_RATE_LIMITER binding's limit per IP address (/v1) in the tests. */
      readonly TEST_IP_RATE_LIMIT: number;
      /** The ADMIN_RATE_LIMITER binding's limit per IP address (/admin) in the tests. */
      readonly TEST_ADMIN_RATE_LIMIT: number;
    }
  }
}
