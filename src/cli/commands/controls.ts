/**
 * `mpsync sync`, `pause` and `resume`: controls that reach a running `watch` through its local
 * control channel (src/daemon/control-channel.ts), and work without one too.
 */
import type { Command } from "commander";
import { MpsyncError } from "../../core/errors.js";
import type { Mapping } from "../../runtime.js";
import { sendControl, type ControlReply } from "../../daemon/control-channel.js";
import { clearPause, readPause, writePause } from "../../state/pause-marker.js";
import { summarizeCycle, type CycleSummary } from "../../sync/cycle-summary.js";
import { commitAfterCycle, withFolder } from "../../app/folder.js";
import { action, type ExitHolder } from "../program.js";
import type { CliIo, CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { warnSink } from "../folder-pull.js";
import { renderPlan } from "../render-plan.js";
import { waitUntilIdle } from "../wait-idle.js";

/** One folder's outcome of `sync` (the `--json` shape). */
interface SyncOutcome extends CycleSummary {
  dir: string;
  /** `daemon`: the running watch ran the cycle; `here`: this command did. */
  by: "daemon" | "here";
  message: string;
}

/** Registers sync, pause and resume. */
export function registerControls(program: Command, io: CliIo, exit: ExitHolder): void {
  program
    .command("sync")
    .description("pull and push now; with mpsync watch running, the daemon runs a full cycle now and this waits for it")
    .argument("[dir...]", "mapped folders (default: the mapped folder you are in, else all)")
    .addHelpText(
      "after",
      `
Like Mutagen's sync flush: local and remote changes both go through now. Without a daemon this
command takes the folder's lock and runs the cycle itself; waits while the design generates.
A paused folder is refused: mpsync resume it first.

Examples:
  $ mpsync sync
  $ mpsync sync web --json`,
    )
    .action(action(io, exit, (ctx, dirs: string[]) => runSync(ctx, dirs)));

  program
    .command("pause")
    .description("hold a folder's sync (a running mpsync watch syncs nothing of it) until mpsync resume")
    .argument("[dir...]", "mapped folders (default: the mapped folder you are in, else all)")
    .addHelpText("after", "\nThe pause is kept in .mpsync/ and outlives the daemon; status shows it.\n\nExamples:\n  $ mpsync pause            # inside web/: hold web during a long refactor\n  $ mpsync pause web admin")
    .action(action(io, exit, (ctx, dirs: string[]) => runPause(ctx, dirs, true)));

  program
    .command("resume")
    .description("end a pause: the running mpsync watch syncs what changed meanwhile")
    .argument("[dir...]", "mapped folders (default: the mapped folder you are in, else all)")
    .addHelpText("after", "\nExamples:\n  $ mpsync resume\n  $ mpsync resume web")
    .action(action(io, exit, (ctx, dirs: string[]) => runPause(ctx, dirs, false)));
}

async function runSync(ctx: CommandContext, dirs: string[]): Promise<number> {
  const outcomes: SyncOutcome[] = [];
  const refused: { dir: string; code: string; message: string }[] = [];
  for (const mapping of await ctx.runtime.mappings(dirs)) {
    const reply = await sendControl(mapping.root, { op: "sync" });
    if (reply !== undefined) {
      if (reply.summary === undefined) refused.push({ dir: mapping.dir, code: reply.code ?? "FAILED", message: reply.message });
      else outcomes.push({ ...(reply.summary as unknown as CycleSummary), dir: mapping.dir, by: "daemon", message: reply.message });
      continue;
    }
    if ((await readPause(mapping.root)) !== undefined) {
      refused.push({ dir: mapping.dir, code: "PAUSED", message: `${mapping.dir} is paused: run mpsync resume first` });
      continue;
    }
    outcomes.push(await syncHere(ctx, mapping));
  }
  ctx.out.result("sync", { ok: refused.length === 0 && outcomes.every((o) => o.halted === undefined), designs: outcomes, refused }, () => {
    for (const o of outcomes) {
      if (o.by === "daemon") ctx.out.info(ctx.out.c.dim(o.message));
      renderPlan(ctx.out, o, false);
    }
    for (const r of refused) ctx.out.warn(r.message);
  });
  if (refused.length > 0 || outcomes.some((o) => o.halted !== undefined)) return EXIT.failure;
  return outcomes.some((o) => o.unresolvedConflicts.length > 0) ? EXIT.conflicts : EXIT.ok;
}

/** No daemon: the full two-way cycle under the folder's lock, after the design is idle. */
async function syncHere(ctx: CommandContext, mapping: Mapping): Promise<SyncOutcome> {
  const emit = warnSink(ctx);
  return withFolder(ctx.runtime, mapping, { command: "mpsync sync", emit }, async (sync) => {
    await waitUntilIdle(ctx, sync, { wait: true });
    const report = await sync.fullSync({});
    await commitAfterCycle(ctx.runtime, mapping, sync.editorId, report, emit);
    return { ...summarizeCycle(report), dir: mapping.dir, by: "here" as const, message: `synced ${mapping.dir}` };
  });
}

async function runPause(ctx: CommandContext, dirs: string[], pause: boolean): Promise<number> {
  const results: { dir: string; paused: boolean; daemon: boolean; message: string }[] = [];
  for (const mapping of await ctx.runtime.mappings(dirs)) {
    let changed: boolean;
    if (pause) {
      const before = await readPause(mapping.root);
      await writePause(mapping.root, { at: ctx.runtime.clock.now(), by: "mpsync pause" });
      changed = before === undefined;
    } else {
      changed = await clearPause(mapping.root);
    }
    const reply: ControlReply | undefined = await sendControl(mapping.root, { op: pause ? "pause" : "resume" });
    if (reply !== undefined && !reply.ok) throw new MpsyncError("DAEMON_REFUSED", `${mapping.dir}: the running daemon refused: ${reply.message}`);
    const message =
      reply !== undefined
        ? `${reply.message}, told the running daemon`
        : pause
          ? `${mapping.dir} paused${changed ? "" : " already"}: no daemon runs now; mpsync watch leaves it alone until mpsync resume`
          : `${mapping.dir} ${changed ? "resumed" : "was not paused"}: no daemon runs now; mpsync watch or mpsync sync syncs it`;
    results.push({ dir: mapping.dir, paused: pause, daemon: reply !== undefined, message });
  }
  ctx.out.result("pause", { ok: true, designs: results }, () => {
    for (const r of results) ctx.out.success(r.message);
  });
  return EXIT.ok;
}
