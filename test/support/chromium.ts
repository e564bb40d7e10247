/** Finds a headless Chromium (Debian's `chromium` package); null when none is installed. */
import { spawnSync } from "node:child_process";

/** How every test launches Chromium: headless, in a container (no sandbox, no GPU, no /dev/shm), no scrollbars in screenshots. */
export const HEADLESS_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"] as const;

export function findChromium(): string | null {
  for (const bin of [process.env.CHROMIUM_BIN, "chromium", "chromium-browser", "google-chrome"]) {
    if (!bin) continue;
    const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
    if (r.status === 0) return bin;
  }
  return null;
}

/** The page's DOM after its scripts ran (virtual time lets the fetch finish). */
export function dumpDom(bin: string, url: string): string {
  const r = spawnSync(bin, [...HEADLESS_FLAGS, "--virtual-time-budget=15000", "--dump-dom", url], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`chromium failed: ${r.stderr.split("\n").slice(-3).join(" ")}`);
  return r.stdout;
}

/** A PNG of the page after its scripts ran, at a window width × height (desktop or mobile). */
export function screenshot(bin: string, url: string, file: string, size: { width: number; height: number }): void {
  const r = spawnSync(bin, [...HEADLESS_FLAGS, "--virtual-time-budget=15000", `--window-size=${size.width},${size.height}`, `--screenshot=${file}`, url], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`chromium failed: ${r.stderr.split("\n").slice(-3).join(" ")}`);
}
