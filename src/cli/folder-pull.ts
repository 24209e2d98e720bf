/**
 * What the commands share around a pull (src/app/folder-pull.ts does the work): warnings on
 * stderr, the progress bar, and the exit code of a pull.
 */
import type { PullOptions } from "../app/folder-pull.js";
import type { CycleSummary } from "../sync/cycle-summary.js";
import type { EventSink } from "../sync/events.js";
import { PROGRESS_MIN_FILES } from "./render-plan.js";
import type { CommandContext } from "./context.js";
import { EXIT } from "./exit-codes.js";

/**
 * Notices from the engine become warnings on stderr. A halt is not one of them: every command
 * that passes this sink renders its summary (render-plan.ts), which says the halt and what to do.
 */
export function warnSink(ctx: CommandContext): EventSink {
  return (e) => {
    if (e.event === "notice") ctx.out.warn(`${ctx.out.folder(e.dir)}: ${e.message}`);
  };
}

/** A pull shown on this command's output: warnings on stderr, a bar on a terminal (PROGRESS_MIN_FILES or more). */
export function shownPull(ctx: CommandContext, options: Omit<PullOptions, "emit" | "view"> = {}): PullOptions {
  return { ...options, emit: warnSink(ctx), view: () => ctx.out.bar("pulling", () => ctx.runtime.clock.monotonic(), PROGRESS_MIN_FILES) };
}

/** The exit code of a pull: 1 halted, 5 unresolved conflicts, else 0. */
export function pullExitCode(summary: CycleSummary | undefined): number {
  if (summary === undefined) return EXIT.ok;
  if (summary.halted !== undefined) return EXIT.failure;
  return summary.unresolvedConflicts.length > 0 ? EXIT.conflicts : EXIT.ok;
}
