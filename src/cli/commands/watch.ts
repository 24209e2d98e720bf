/** `mpsync watch`: the daemon, until SIGINT/SIGTERM (flush, then exit 0); SIGHUP reloads .syncrc. */
import type { Command } from "commander";
import { WatchDaemon } from "../../daemon/watch-daemon.js";
import { runUntilStopped } from "../../daemon/run-until-stopped.js";
import { action, explainRefusedKey, type ExitHolder } from "../program.js";
import type { CliIo, CommandContext } from "../context.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";
import { errorCode } from "../../core/errors.js";
import { describeError } from "../../sync/describe-error.js";

/** Registers `watch`. */
export function registerWatch(program: Command, io: CliIo, exit: ExitHolder): void {
  program
    .command("watch")
    .description("two-way sync of every mapping (or the named folders) until Ctrl-C")
    .argument("[dir...]", "mapped folders (default: all)")
    .addHelpText(
      "after",
      `
SIGINT/SIGTERM flush pending pushes for at most 10 s, then pending requests are abandoned; a
second signal exits at once (one that follows the first within 0.5 s, as when \`npm run\`
passes on the terminal's Ctrl-C, counts as the same request). Edits not sent stay on disk
and go out at the next start.
A saved .syncrc is re-read without a signal (SIGHUP does the same): new mappings start,
removed ones stop, running folders restart their sync to take changed settings, and one line
says what changed (baseUrl and logLevel need watch restarted).
A folder stops alone on a 403 or 404, or when its .mpsync/ is removed; when none is left,
watch exits with one line saying why (exit 3 after a 403, else 1).
With --json, stdout is a JSON Lines stream of events (ready, pushed, pulled, conflict,
generating, idle, published, halted, rate_limited, error); logs go to stderr.

Examples:
  $ mpsync watch
  $ mpsync watch web --json > events.jsonl`,
    )
    .action(
      action(io, exit, async (ctx, dirs: string[]) => {
        const daemon = new WatchDaemon({ runtime: ctx.runtime, dirs, emit: (e) => ctx.out.event(e) });
        return runDaemonUntilStopped(ctx, daemon);
      }),
    );
}

/**
 * Runs a started-or-not daemon until SIGINT/SIGTERM (daemon/run-until-stopped.ts), with
 * rate-limit events on the way; says a failure in one line. Resolves to the exit code.
 */
export async function runDaemonUntilStopped(ctx: CommandContext, daemon: WatchDaemon): Promise<number> {
  try {
    await runUntilStopped(daemon, {
      onSignal: (signal, handler) => ctx.io.onSignal(signal, handler),
      env: ctx.io.env,
      clock: ctx.runtime.clock,
      warn: (line) => ctx.out.warn(line),
      subscribe: async () =>
        (await ctx.runtime.requestQueue()).onRateLimited((e) =>
          ctx.out.event({ event: "rate_limited", dir: "*", message: `rate limited: requests paused for ${Math.ceil(e.delayMs / 1000)} s`, delayMs: e.delayMs, until: e.until }),
        ),
    });
    return EXIT.ok;
  } catch (err) {
    const explained = explainRefusedKey(err, ctx);
    // --json: stdout stays JSON Lines to the end, so the last word is an event too.
    if (ctx.out.opts.json) ctx.out.event({ event: "error", dir: "*", code: errorCode(explained), message: describeError(explained), exitCode: exitCodeFor(explained) });
    else ctx.out.error(explained);
    return exitCodeFor(err);
  }
}
