/**
 * The serving configuration on the hot path: KV's mirror, kept per isolate
 * for ROUND_CACHE_TTL_MS. A KV failure or an unknown version reads as "no
 * experiment" (the newest round serves), never as a failed search.
 */
import { SERVING_CONFIG_KEY, SERVING_CONFIG_VERSION, type ServingConfig } from "./store.js";

let cached: { at: number; config: ServingConfig | null } | null = null;

/** Test hook: forget the cached configuration. */
export function clearServingConfigCache(): void {
  cached = null;
}

export async function servingConfig(kv: KVNamespace, ttlMs: number): Promise<ServingConfig | null> {
  const now = Date.now();
  if (cached && now - cached.at < ttlMs) return cached.config;
  let config: ServingConfig | null = null;
  try {
    const value = await kv.get<ServingConfig>(SERVING_CONFIG_KEY, "json");
    if (value && value.version === SERVING_CONFIG_VERSION) config = value;
    else if (value) console.warn(`ignoring serving config of version ${String(value.version)}`);
  } catch (e) {
    console.warn("serving config unreadable from KV; serving without an experiment:", (e as Error).message);
  }
  cached = { at: now, config };
  return config;
}
