/**
 * Headless Chromium driven over the DevTools protocol through a pipe
 * (`--remote-debugging-pipe`: commands on fd 3, answers on fd 4, each a
 * NUL-terminated JSON message), so a test can type into a page, accept its
 * confirmation dialogs, click and read the DOM, with no WebSocket client or
 * browser-automation package. `findChromium` (chromium.ts) finds the binary.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { HEADLESS_FLAGS } from "./chromium.js";

type Message = { id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string; result?: unknown; error?: { message: string } };

export class Browser {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners: Array<(m: Message) => void> = [];
  private buffer = "";

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const out = child.stdio[4] as Readable;
    out.setEncoding("utf8");
    out.on("data", (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf("\0"); end >= 0; end = this.buffer.indexOf("\0")) {
        const m = JSON.parse(this.buffer.slice(0, end)) as Message;
        this.buffer = this.buffer.slice(end + 1);
        if (m.id !== undefined) {
          const p = this.pending.get(m.id);
          this.pending.delete(m.id);
          if (m.error) p?.reject(new Error(m.error.message));
          else p?.resolve(m.result);
        } else for (const l of this.listeners) l(m);
      }
    });
  }

  static launch(bin: string): Browser {
    const profile = mkdtempSync(join(tmpdir(), "cogr-cdp-"));
    const child = spawn(bin, [...HEADLESS_FLAGS, "--remote-debugging-pipe", `--user-data-dir=${profile}`, "about:blank"], {
      stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
    });
    return new Browser(child, profile);
  }

  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = this.nextId++;
    const done = new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
    (this.child.stdio[3] as Writable).write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    return done;
  }

  on(listener: (m: Message) => void): void {
    this.listeners.push(listener);
  }

  /** A new tab at `url`, `width` × `height` (mobile when under 600 px), its confirmation dialogs accepted and recorded. */
  async open(url: string, size: { width: number; height: number }): Promise<Page> {
    const { targetId } = await this.send<{ targetId: string }>("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await this.send<{ sessionId: string }>("Target.attachToTarget", { targetId, flatten: true });
    const page = new Page(this, sessionId);
    this.on((m) => {
      if (m.sessionId === sessionId && m.method === "Page.javascriptDialogOpening") {
        page.dialogs.push(String(m.params?.message ?? ""));
        void this.send("Page.handleJavaScriptDialog", { accept: true }, sessionId);
      }
    });
    await page.send("Page.enable");
    await page.send("Runtime.enable");
    await page.send("Emulation.setDeviceMetricsOverride", { width: size.width, height: size.height, deviceScaleFactor: 1, mobile: size.width < 600 });
    await page.goto(url);
    return page;
  }

  /** Stops the browser and, once it has exited (it writes its profile until then), removes the profile. */
  async close(): Promise<void> {
    const exited = this.child.exitCode !== null ? Promise.resolve() : new Promise<void>((r) => this.child.once("exit", () => r()));
    this.child.kill("SIGKILL");
    await exited;
    // Chromium's helper processes (renderer, crashpad) can outlive the browser by a moment and still write the
    // profile: retry for up to 3 s, then leave the temporary folder (a leftover profile is not the page's failure).
    for (let attempt = 0; attempt < 30; attempt++) {
      try {
        rmSync(this.profile, { recursive: true, force: true });
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}

export class Page {
  /** The messages of the dialogs (confirm, alert) the page opened, in order; each was accepted. */
  readonly dialogs: string[] = [];
  constructor(
    private readonly browser: Browser,
    private readonly sessionId: string,
  ) {}

  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    return this.browser.send<T>(method, params, this.sessionId);
  }

  async goto(url: string): Promise<void> {
    await this.send("Page.navigate", { url });
    await this.waitFor("document.readyState === 'complete'");
  }

  /** The value of a script expression (awaited, by value). */
  async evaluate<T>(expression: string): Promise<T> {
    const r = await this.send<{ result: { value: T }; exceptionDetails?: { text: string } }>("Runtime.evaluate", {
      expression,
      awaitPromise: true,
      returnByValue: true,
    });
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.text}`);
    return r.result.value;
  }

  /** Polls until the expression is truthy (every 100 ms, up to `timeoutMs`). */
  async waitFor(expression: string, timeoutMs = 20_000): Promise<void> {
    for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      if (await this.evaluate<boolean>(`Boolean(${expression})`).catch(() => false)) return;
    }
    throw new Error(`timed out waiting for ${expression}`);
  }

  html(): Promise<string> {
    return this.evaluate<string>("document.documentElement.outerHTML");
  }

  /** A PNG of the whole page (past the window's height). */
  async screenshot(file: string): Promise<void> {
    const { data } = await this.send<{ data: string }>("Page.captureScreenshot", { format: "png", captureBeyondViewport: true });
    writeFileSync(file, Buffer.from(data, "base64"));
  }
}
