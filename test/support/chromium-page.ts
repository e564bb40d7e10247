/**
 * A headless Chromium page driven over the DevTools protocol through
 * `--remote-debugging-pipe` (fd 3 in, fd 4 out, NUL-separated JSON), so a
 * test can type, press keys and read the DOM with no WebSocket client:
 * what the dump-dom checks (chromium.ts) cannot do.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { HEADLESS_FLAGS } from "./chromium.js";

const KEYS = { ArrowDown: 40, ArrowUp: 38, Enter: 13, Escape: 27 } as const;

export interface ChromiumPage {
  /** A JavaScript expression's value in the page (JSON-serialisable). */
  evaluate<T>(expression: string): Promise<T>;
  /** Polls an expression until it is truthy (or throws after `timeoutMs`). */
  waitFor(expression: string, timeoutMs?: number): Promise<void>;
  /** Types text into the focused element, as input events. */
  type(text: string): Promise<void>;
  press(key: keyof typeof KEYS): Promise<void>;
  screenshot(file: string): Promise<void>;
  close(): Promise<void>;
}

export async function openPage(bin: string, url: string, size: { width: number; height: number }): Promise<ChromiumPage> {
  const profile = mkdtempSync(join(tmpdir(), "cogr-chromium-"));
  const args = [...HEADLESS_FLAGS, "--remote-debugging-pipe"];
  const proc: ChildProcess = spawn(bin, [...args, `--user-data-dir=${profile}`, `--window-size=${size.width},${size.height}`, "about:blank"], {
    stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
  });
  const toBrowser = proc.stdio[3] as Writable;
  const fromBrowser = proc.stdio[4] as Readable;
  let nextId = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let buffered = "";
  fromBrowser.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    for (let cut = buffered.indexOf("\0"); cut >= 0; cut = buffered.indexOf("\0")) {
      const msg = JSON.parse(buffered.slice(0, cut)) as { id?: number; result?: unknown; error?: { message: string } };
      buffered = buffered.slice(cut + 1);
      const w = msg.id === undefined ? undefined : waiting.get(msg.id);
      if (!w) continue;
      waiting.delete(msg.id as number);
      if (msg.error) w.reject(new Error(msg.error.message));
      else w.resolve(msg.result);
    }
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}, sessionId?: string) =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  const { targetInfos } = await send<{ targetInfos: Array<{ targetId: string; type: string }> }>("Target.getTargets");
  const page = targetInfos.find((t) => t.type === "page");
  if (!page) throw new Error("chromium opened no page");
  const { sessionId } = await send<{ sessionId: string }>("Target.attachToTarget", { targetId: page.targetId, flatten: true });
  const inPage = <T>(method: string, params: Record<string, unknown> = {}) => send<T>(method, params, sessionId);
  await inPage("Page.enable");
  await inPage("Page.navigate", { url });

  const evaluate = async <T>(expression: string) => {
    const r = await inPage<{ result: { value?: T }; exceptionDetails?: { text: string } }>("Runtime.evaluate", { expression, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.text}`);
    return r.result.value as T;
  };
  return {
    evaluate,
    async waitFor(expression, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        if (await evaluate<boolean>(`Boolean(${expression})`).catch(() => false)) return;
        if (Date.now() > until) throw new Error(`timed out waiting for ${expression}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async type(text) {
      await inPage("Input.insertText", { text });
    },
    async press(key) {
      const code = KEYS[key];
      await inPage("Input.dispatchKeyEvent", { type: "rawKeyDown", key, code: key, windowsVirtualKeyCode: code, nativeVirtualKeyCode: code });
      await inPage("Input.dispatchKeyEvent", { type: "keyUp", key, code: key, windowsVirtualKeyCode: code, nativeVirtualKeyCode: code });
    },
    async screenshot(file) {
      const { data } = await inPage<{ data: string }>("Page.captureScreenshot", { format: "png" });
      writeFileSync(file, Buffer.from(data, "base64"));
    },
    async close() {
      await send("Browser.close").catch(() => {});
      if (proc.exitCode === null) await new Promise((r) => proc.once("exit", r));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
