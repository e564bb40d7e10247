/**
 * `npm run data`: downloads the public WANDS (github.com/wayfair/WANDS,
 * MIT) into data/wands when it is absent. COGR_DATA points anywhere else.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isCatalogDir } from "../training/data/catalog.js";
import { dataDir } from "../training/data/dataset.js";
import { WANDS_FILES } from "../training/data/wands.js";
import { runCli } from "./cli.js";

const BASE_URL = process.env.COGR_WANDS_URL ?? "https://raw.githubusercontent.com/wayfair/WANDS/main/dataset/";
const TIMEOUT_MS = { connect: 30_000, total: 15 * 60_000 } as const;

async function download(url: string): Promise<Uint8Array> {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS.total) });
  if (!res.ok || !res.body) throw new Error(`${url} answered HTTP ${res.status}`);
  const total = Number(res.headers.get("content-length") ?? 0);
  const chunks: Uint8Array[] = [];
  let got = 0;
  let shown = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    got += chunk.length;
    if (process.stderr.isTTY && got - shown > 2 ** 20) {
      shown = got;
      process.stderr.write(`\r  ${(got / 2 ** 20).toFixed(1)} MiB${total ? ` of ${(total / 2 ** 20).toFixed(1)}` : ""}`);
    }
  }
  if (process.stderr.isTTY) process.stderr.write("\n");
  return Buffer.concat(chunks);
}

runCli(async () => {
  const dir = dataDir();
  if (isCatalogDir(dir)) {
    console.log(`${dir} holds an imported catalogue: nothing to download`);
    return;
  }
  const files = Object.values(WANDS_FILES);
  if (files.every((f) => existsSync(join(dir, f)))) {
    console.log(`WANDS is already in ${dir}`);
    return;
  }
  const created = mkdirSync(dir, { recursive: true }); // the first folder it made, if any
  const fetched: string[] = [];
  try {
    for (const f of files) {
      if (existsSync(join(dir, f))) continue;
      console.log(`downloading ${BASE_URL}${f}`);
      let bytes: Uint8Array;
      try {
        bytes = await download(`${BASE_URL}${f}`);
      } catch (e) {
        const why = (e as Error & { cause?: Error }).cause?.message ?? (e as Error).message;
        throw new Error(`could not download WANDS (${why}); connect to the internet, or set COGR_DATA to a folder holding ${files.join(", ")}`);
      }
      const tmp = join(dir, `${f}.part`);
      writeFileSync(tmp, bytes);
      renameSync(tmp, join(dir, f));
      fetched.push(f);
    }
  } catch (e) {
    // Leave nothing half-done: a partial set of files would look like data to `npm start`.
    for (const f of [...fetched, ...files.map((x) => `${x}.part`)]) rmSync(join(dir, f), { force: true });
    if (created) rmSync(created, { recursive: true, force: true });
    throw e;
  }
  console.log(`WANDS is in ${dir}`);
});
