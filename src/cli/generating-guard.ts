/** Refusing work that a running generation would overtake (a prompt, a checkout). */
import { MpsyncError } from "../core/errors.js";
import type { Mapping } from "../runtime.js";
import type { DesignSync } from "../sync/design-sync.js";
import type { CommandContext } from "./context.js";
import { holdFolder } from "../app/folder.js";
import { warnSink } from "./folder-pull.js";
import { waitUntilIdle } from "./wait-idle.js";

/**
 * Throws GENERATING (`notDone` says what did not happen) when the mapped design is generating;
 * resolves to its editorId. Polls only when the interval allows, else uses the last status.
 */
export async function refuseWhileGenerating(ctx: CommandContext, mapping: Mapping, command: string, notDone: string): Promise<string> {
  const hold = await holdFolder(mapping.root, command);
  let generating: boolean;
  let sync: DesignSync;
  try {
    sync = await ctx.runtime.openDesign(mapping, warnSink(ctx), { holdsLock: hold.lock !== undefined });
    // A running daemon owns state.json: only read it then (waitUntilIdle saves it).
    generating = hold.lock !== undefined ? await waitUntilIdle(ctx, sync, { wait: false }) : await generatingReadOnly(ctx, sync);
  } finally {
    await hold.lock?.release();
  }
  if (generating) {
    throw new MpsyncError("GENERATING", `${mapping.dir}: the design is generating: ${notDone}`, {
      hint: "wait until it is idle (mpsync status), then run the command again",
    });
  }
  return sync.editorId;
}

async function generatingReadOnly(ctx: CommandContext, sync: DesignSync): Promise<boolean> {
  const scheduler = await ctx.runtime.pollScheduler();
  const cached = sync.state.lastStatus;
  if (cached !== undefined && (await scheduler.delayUntilNextPoll(sync.editorId)) > 0) return cached.isGenerating;
  const client = await ctx.runtime.client();
  return (await scheduler.poll(sync.editorId, () => client.getStatus(sync.editorId))).isGenerating;
}
