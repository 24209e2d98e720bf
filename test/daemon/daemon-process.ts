/** Spawns the built CLI's `watch --json` and reads its JSON Lines events. */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { schemaMismatch } from "../support/json-output.js";
import { assertBuilt, BIN } from "../e2e/helpers.js";

/** A running `mpsync watch --json` child. */
export interface DaemonProcess {
  child: ChildProcess;
  events: Record<string, unknown>[];
  stderr: string[];
  /** Resolves on the first event (from `since`) matching `predicate`. */
  waitFor(predicate: (e: Record<string, unknown>) => boolean, options?: { since?: number; timeoutMs?: number }): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Kills a daemon a test left running (SIGKILL) and waits until it is gone; one already gone is left as it is. */
export async function killDaemon(d: DaemonProcess | undefined): Promise<void> {
  if (d === undefined || d.child.exitCode !== null || d.child.signalCode !== null) return;
  d.child.kill("SIGKILL");
  await d.exited;
}

/** Starts `node dist/bin.cjs watch --json` in `cwd` with `env` added to a minimal environment. */
export function spawnWatch(cwd: string, env: Record<string, string>, args: string[] = []): DaemonProcess {
  return spawnJsonLines(cwd, env, ["watch", "--json", ...args]);
}

/** Starts `node dist/bin.cjs ...args` (a command printing JSON Lines events: `watch --json`, `dev --json`). */
export function spawnJsonLines(cwd: string, env: Record<string, string>, args: string[]): DaemonProcess {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: cwd, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const events: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  const schemaErrors: string[] = [];
  const waiters = new Set<() => void>();
  const kinds = args.includes("--json") ? ["event", "error"] : [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const event = JSON.parse(line) as Record<string, unknown>;
    // An event the published schema lacks fails the waiting test (json-output.schema.json).
    const mismatch = kinds.length === 0 ? undefined : schemaMismatch(kinds, event);
    if (mismatch !== undefined) schemaErrors.push(mismatch);
    events.push(event);
    for (const w of [...waiters]) w();
  });
  createInterface({ input: child.stderr! }).on("line", (line) => stderr.push(line));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    events,
    stderr,
    exited,
    waitFor(predicate, { since = 0, timeoutMs = 15_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (schemaErrors.length > 0) {
            waiters.delete(check as () => void);
            clearTimeout(timer);
            reject(new Error(schemaErrors[0]));
            return true;
          }
          const hit = events.slice(since).find(predicate);
          if (hit === undefined) return false;
          waiters.delete(check as () => void);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check as () => void);
          reject(new Error(`no matching event in ${timeoutMs} ms; events: ${JSON.stringify(events)}; stderr: ${stderr.join("\n")}`));
        }, timeoutMs);
        if (!check()) waiters.add(check as () => void);
      });
    },
  };
}
