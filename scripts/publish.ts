/**
 * `npm run publish -- --round N [--local | --remote [--env E] [--yes]] [--dry-run] [--config wrangler.toml] [--state DIR] [--via-wrangler] [--full] [--replace] [--break-lock]`
 * Loads a round artifact into the serving index (D1 shards, catalogue, KV):
 * atomically, streamed, resumable after a kill, and incremental on the newest
 * published round with the same items unless --full (scripts/publish/command.ts).
 */
import { runCli } from "./cli.js";
import { publishCommand } from "./publish/command.js";

runCli(() => publishCommand());
