/** `mpsync watch`: the daemon, until SIGINT/SIGTERM (flush, then exit 0); SIGHUP reloads .syncrc. */
import type { Command } from "commander";
import { WatchDaemon } from "../../daemon/watch-daemon.js";
import { action, type ExitHolder } from "../program.js";
import type { CliIo } from "../context.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";

/** Registers `watch`. */
export function registerWatch(program: Command, io: CliIo, exit: ExitHolder): void {
  program
    .command("watch")
    .description("two-way sync of every mapping (or the named folders) until Ctrl-C")
    .argument("[dir...]", "mapped folders (default: all)")
    .addHelpText(
      "after",
      `
Pending pushes are flushed on SIGINT/SIGTERM; SIGHUP re-reads .syncrc (adds or drops folders).
With --json, stdout is a JSON Lines stream of events (ready, pushed, pulled, conflict,
generating, idle, published, halted, rate_limited, error); logs go to stderr.

Examples:
  $ mpsync watch
  $ mpsync watch web --json > events.jsonl`,
    )
    .action(
      action(io, exit, async (ctx, dirs: string[]) => {
        const daemon = new WatchDaemon({ runtime: ctx.runtime, dirs, emit: (e) => ctx.out.event(e) });
        let stopping: Promise<void> | undefined;
        const stop = (): void => {
          stopping ??= daemon.stop();
        };
        const unsubscribe = [
          io.onSignal("SIGINT", stop),
          io.onSignal("SIGTERM", stop),
          io.onSignal("SIGHUP", () => {
            daemon.reload().then(
              () => ctx.runtime.logger().info("reloaded .syncrc"),
              (err: unknown) => ctx.out.error(err),
            );
          }),
        ];
        try {
          unsubscribe.push(
            (await ctx.runtime.requestQueue()).onRateLimited((e) =>
              ctx.out.event({ event: "rate_limited", dir: "*", message: `rate limited: requests paused for ${Math.ceil(e.delayMs / 1000)} s`, delayMs: e.delayMs, until: e.until }),
            ),
          );
          await daemon.start();
          await daemon.done;
          return EXIT.ok;
        } catch (err) {
          await (stopping ?? daemon.stop().catch(() => undefined));
          ctx.out.error(err);
          return exitCodeFor(err);
        } finally {
          for (const u of unsubscribe) u();
        }
      }),
    );
}
