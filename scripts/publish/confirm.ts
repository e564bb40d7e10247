/**
 * Remote changes are confirmed by a person, or by --yes: `publish --remote` and `unpublish --remote`
 * show what they will do and ask on a terminal; without one and without --yes they refuse in one
 * line, so a pipe or a CI job never applies production migrations by accident.
 */
import { createInterface } from "node:readline/promises";
import { UsageError } from "../cli.js";

export interface ConfirmIo {
  readonly isTTY: boolean;
  /** Asks one question; the answer as typed. */
  readonly ask: (question: string) => Promise<string>;
}

export const terminalIo = (): ConfirmIo => ({
  isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
  ask: async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  },
});

export class NotConfirmed extends Error {}

/** Refuses at once (before anything remote is read) when no one can confirm: no terminal and no --yes. */
export function assertConfirmable(what: string, opts: { readonly yes: boolean }, io: ConfirmIo = terminalIo()): void {
  if (!opts.yes && !io.isTTY) throw new UsageError(`${what} needs a confirmation: run it in a terminal, or pass --yes (CI); --dry-run shows the plan`);
}

/** Resolves when the change may go ahead; throws (one line) when it may not. */
export async function confirmRemote(what: string, opts: { readonly yes: boolean }, io: ConfirmIo = terminalIo()): Promise<void> {
  assertConfirmable(what, opts, io);
  if (opts.yes) return;
  const answer = (await io.ask(`${what}? [y/N] `)).trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") throw new NotConfirmed("nothing done: not confirmed");
}
