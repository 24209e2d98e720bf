/**
 * `mpsync sync`, `pause` and `resume`: controls that reach a running `watch` through its local
 * control channel (src/daemon/control-channel.ts), and work without one too.
 */
import type { Mapping } from "../../runtime.js";
import { sendControl } from "../../daemon/control-channel.js";
import type { CycleSummary } from "../../sync/cycle-summary.js";
import { isPaused, setPause, syncHere } from "../../app/one-shot.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { warnSink } from "../folder-pull.js";
import { renderPlan } from "../render-plan.js";
import { idleWaitView } from "../wait-view.js";
import type { CliDocument } from "../../app/json-documents.js";

/** One folder's outcome of `sync`; `by`: `daemon` when the running watch ran the cycle, `here` when this command did. */
type SyncOutcome = CliDocument<"sync">["designs"][number];

/** `mpsync pause`. */
export function runPause(ctx: CommandContext, dirs: string[]): Promise<number> {
  return pauseOrResume(ctx, dirs, true);
}

/** `mpsync resume`. */
export function runResume(ctx: CommandContext, dirs: string[]): Promise<number> {
  return pauseOrResume(ctx, dirs, false);
}

/** `mpsync sync`. */
export async function runSync(ctx: CommandContext, dirs: string[]): Promise<number> {
  const outcomes: SyncOutcome[] = [];
  const refused: { dir: string; code: string; message: string }[] = [];
  for (const mapping of await ctx.runtime.mappings(dirs)) {
    const reply = await sendControl(mapping.root, { op: "sync" });
    if (reply !== undefined) {
      if (reply.code === "PAUSED") refused.push(pausedRefusal(mapping));
      else if (reply.summary === undefined) refused.push({ dir: mapping.dir, code: reply.code ?? "FAILED", message: `${mapping.label}: ${reply.message}` });
      else outcomes.push({ ...(reply.summary as unknown as CycleSummary), dir: mapping.dir, by: "daemon", message: `${mapping.label} ${reply.message}` });
      continue;
    }
    if (await isPaused(mapping)) {
      refused.push(pausedRefusal(mapping));
      continue;
    }
    outcomes.push(await syncHereShown(ctx, mapping));
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

/** A paused folder's refusal, whether the daemon or this command found it paused. */
function pausedRefusal(mapping: Mapping): { dir: string; code: string; message: string } {
  return { dir: mapping.dir, code: "PAUSED", message: `${mapping.label} is paused: run mpsync resume first` };
}

/** No daemon: the full two-way cycle here, after the design is idle. */
async function syncHereShown(ctx: CommandContext, mapping: Mapping): Promise<SyncOutcome> {
  const summary = await syncHere(ctx.runtime, mapping, warnSink(ctx), idleWaitView(ctx));
  return { ...summary, dir: mapping.dir, by: "here" as const, message: `synced ${mapping.label}` };
}

async function pauseOrResume(ctx: CommandContext, dirs: string[], pause: boolean): Promise<number> {
  const results: { dir: string; paused: boolean; daemon: boolean; message: string }[] = [];
  for (const mapping of await ctx.runtime.mappings(dirs)) {
    const { changed, reply } = await setPause(ctx.runtime, mapping, pause);
    const message =
      reply !== undefined
        ? `${mapping.label} ${reply.message}, told the running daemon`
        : pause
          ? `${mapping.label} paused${changed ? "" : " already"}: no daemon runs now; mpsync watch leaves it alone until mpsync resume`
          : `${mapping.label} ${changed ? "resumed" : "was not paused"}: no daemon runs now; mpsync watch or mpsync sync syncs it`;
    results.push({ dir: mapping.dir, paused: pause, daemon: reply !== undefined, message });
  }
  ctx.out.result("pause", { ok: true, designs: results }, () => {
    for (const r of results) ctx.out.success(r.message);
  });
  return EXIT.ok;
}
