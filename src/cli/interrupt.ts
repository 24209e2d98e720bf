/**
 * Ctrl-C (or SIGTERM) during a command that writes into mapped folders (`pull`, `push`,
 * `init`): instead of dying between a temp file and its rename, the command stops writing
 * between files, removes its temp files, says in one line what was done and how to resume,
 * and exits 130 (143 for SIGTERM). Everything already written is recorded or journaled, so
 * the resume command picks up where this one stopped.
 */
import type { PullProgress } from "../app/folder-pull.js";
import type { CommandContext } from "./context.js";

/** Exit codes of an interrupted command: 128 + the signal's number, as shells report them. */
export const EXIT_INTERRUPTED = { SIGINT: 130, SIGTERM: 143 } as const;

/** "web after 120 of 3,000 files" (or just "web" before the first file). */
export function describeProgress(p: PullProgress): string {
  if (p.label === undefined) return "before anything was written";
  const files = p.total > 0 ? ` after ${p.done.toLocaleString("en-US")} of ${p.total.toLocaleString("en-US")} files` : "";
  const finished = p.finished.length > 0 ? ` (${p.finished.join(", ")} finished)` : "";
  return `in ${p.label}${files}${finished}`;
}

/**
 * Runs `work` until it ends or a signal arrives. On a signal: the folders' writes stop, temp
 * files are removed, `describe()` (what was done and how to resume) is said once, and the
 * result is the signal's exit code; `work` is abandoned (its later failure is not reported).
 */
export async function untilInterrupted(ctx: CommandContext, work: () => Promise<number>, describe: () => string): Promise<number> {
  let begun = false;
  let onSignal: (signal: "SIGINT" | "SIGTERM") => void = () => undefined;
  const interrupted = new Promise<number>((resolve) => {
    onSignal = (signal) => {
      if (begun) return;
      begun = true;
      void ctx.runtime.interrupt().then((removed) => {
        const message = `interrupted: ${describe()}`;
        ctx.runtime.logger().debug({ removedTempFiles: removed }, "interrupted");
        if (ctx.out.opts.json) ctx.out.result("interrupted", { ok: false, interrupted: true, signal, message });
        ctx.out.warn(message);
        resolve(EXIT_INTERRUPTED[signal]);
      });
    };
  });
  const offs = [ctx.io.onSignal("SIGINT", () => onSignal("SIGINT")), ctx.io.onSignal("SIGTERM", () => onSignal("SIGTERM"))];
  try {
    // Once a signal came, its line and exit code win, whatever the abandoned work does next.
    const done = work().then(
      (code) => (begun ? interrupted : code),
      (err: unknown) => (begun ? interrupted : Promise.reject(err)),
    );
    return await Promise.race([done, interrupted]);
  } finally {
    for (const off of offs) off();
  }
}
