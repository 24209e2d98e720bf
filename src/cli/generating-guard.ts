/** Refusing work that a running generation would overtake (a prompt, a checkout). */
import { MpsyncError } from "../core/errors.js";
import type { Mapping } from "../runtime.js";
import type { CommandContext } from "./context.js";
import { designGenerating } from "../app/design-status.js";
import { warnSink } from "./folder-pull.js";

/**
 * Throws GENERATING (`notDone` says what did not happen) when the mapped design is generating;
 * resolves to its editorId. Polls only when the interval allows, else uses the last status.
 */
export async function refuseWhileGenerating(ctx: CommandContext, mapping: Mapping, command: string, notDone: string): Promise<string> {
  const { generating, editorId } = await designGenerating(ctx.runtime, mapping, command, warnSink(ctx));
  if (generating) {
    throw new MpsyncError("GENERATING", `${mapping.dir}: the design is generating: ${notDone}`, {
      hint: "wait until it is idle (mpsync status), then run the command again",
    });
  }
  return editorId;
}
