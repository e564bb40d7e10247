/**
 * Publishing round artifacts from Node: what `npm run publish`, `npm start`
 * and the benchmarks share. The artifact streams (items, postings, df tail)
 * straight into the plan, so memory stays bounded at any catalogue size, and
 * the base is the newest published round whose artifact is here with the same
 * content and the same items: the publish then writes only what differs.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { keywordCacheKeyOf } from "../../core/contract.js";
import { normalizeKeyword } from "../../core/normalize.js";
import { QUERY_KEYWORDS_FILE, readQueryKeywords } from "../../training/llm/query-keywords.js";
import {
  artifactsDir,
  readManifest,
  roundDir,
  roundIndexHeader,
  roundItems,
  roundPolicyTail,
  roundPostings,
  roundQueryGenerator,
} from "../../training/round-artifact.js";
import { PUBLISH_LIMITS } from "../limits.js";
import { withLock } from "../lock.js";
import { type PublishOptions, type PublishProgress, type PublishReport, publishedManifests, publishRound } from "../publisher.js";
import type { PublishBase, PublishSource } from "../source.js";
import type { PublishTarget } from "../target.js";
import { lockOwner, processAlive } from "./lock-owner.js";
import type { OpenTarget } from "./targets.js";

/** A round artifact as a publish source: every read streams the file again and checks its checksum. */
export function artifactSource(round: number, root = artifactsDir()): PublishSource {
  const dir = roundDir(round, root);
  const manifest = readManifest(dir);
  const { spec } = roundQueryGenerator(dir, manifest);
  return {
    manifest,
    header: roundIndexHeader(dir, manifest),
    items: () => roundItems(dir, manifest),
    postings: () => roundPostings(dir, manifest).postings,
    queryGenerator: spec,
    queryDfTail: () => roundQueryGenerator(dir, manifest).tail ?? [],
    policyTail: () => roundPolicyTail(dir, manifest),
  };
}

function sameIds(a: PublishSource, b: PublishSource): boolean {
  if (a.header.itemCount !== b.header.itemCount) return false;
  const other = b.items()[Symbol.iterator]();
  try {
    for (const it of a.items()) if (other.next().value?.id !== it.id) return false;
    return true;
  } finally {
    other.return?.(); // closes the base's file when the ids part early
  }
}

/** The round to build on: the newest other published round whose artifact is here, unchanged, over the same items. */
export async function findBase(target: PublishTarget, source: PublishSource, root = artifactsDir()): Promise<PublishBase | null> {
  for (const m of await publishedManifests(target, source.manifest.round)) {
    if (m.shardCount !== target.shards.length || m.chain.length >= PUBLISH_LIMITS.maxChain) continue;
    if (!existsSync(roundDir(m.round, root))) continue;
    let base: PublishSource;
    try {
      base = artifactSource(m.round, root);
    } catch {
      continue;
    }
    if (base.manifest.contentHash === m.contentHash && sameIds(source, base)) return { manifest: m, source: base };
  }
  return null;
}

/**
 * An LLM round's precomputed query keywords, as the worker's keyword cache
 * holds them (workers/search/keywords.ts keywordCacheKey): those queries are
 * answered without calling the model, from the first request on.
 */
function warmKeywordCache(source: PublishSource, root: string): Array<[string, string]> {
  const m = source.manifest;
  if (source.queryGenerator.kind !== "llm" || !m.checksums[QUERY_KEYWORDS_FILE]) return [];
  const out: Array<[string, string]> = [];
  for (const line of readQueryKeywords(m.round, root).values()) {
    if (line.source !== "llm") continue; // fallbacks are not the round's answer
    const hash = createHash("sha256").update(normalizeKeyword(line.query)).digest("hex");
    out.push([keywordCacheKeyOf(m.round, m.contentHash, hash), JSON.stringify({ keywords: line.keywords, source: "llm" })]);
  }
  return out;
}

export interface ArtifactPublishOptions extends PublishOptions {
  readonly root?: string;
  /** Build on a published round when one fits (default true). */
  readonly incremental?: boolean;
  readonly progress?: PublishProgress;
  /** Take the publish lock even from a holder that looks alive (`--break-lock`). */
  readonly breakLock?: boolean;
  /** Told when the lock is taken over from a stale holder (expired, broken, or a dead process of this host). */
  readonly onTakeOver?: (from: string) => void;
}

/** Publishes round N's artifact (or a given source) under the publish lock, and always releases the target. */
export async function publishTo(target: OpenTarget, round: number | PublishSource, opts: ArtifactPublishOptions = {}): Promise<PublishReport> {
  const root = opts.root ?? artifactsDir();
  try {
    const source = typeof round === "number" ? artifactSource(round, root) : round;
    return await withLock(target, lockOwner(), { breakLock: opts.breakLock, alive: processAlive }, async (lock) => {
      if (lock.tookOverFrom) opts.onTakeOver?.(lock.tookOverFrom);
      const base = opts.incremental === false ? null : await findBase(target, source, root);
      const progress: PublishProgress = async (step, info) => {
        await lock.refresh();
        await opts.progress?.(step, info);
      };
      return await publishRound(target, source, base, progress, { ...opts, kv: [...(opts.kv ?? []), ...warmKeywordCache(source, root)] });
    });
  } finally {
    await target.dispose();
  }
}
