/** Entry point of the `search` worker (wrangler.toml `main`). */

import { createApp } from "./app.js";
import type { Env } from "./bindings.js";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
