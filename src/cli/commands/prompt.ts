/** `mpsync prompt TEXT`: ask for a change; with --wait, poll until idle, pull, show the reply. */
import { isLockHolderAlive, readFolderLock } from "../../state/lock.js";
import type { V3Client } from "../../api/client-types.js";
import { MpsyncError } from "../../core/errors.js";
import { messageText, type PromptRequest } from "../../api/schemas.js";
import type { Mapping } from "../../runtime.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { pullExitCode, shownPull } from "../folder-pull.js";
import { pullMappedIfFree } from "../../app/folder-pull.js";
import { renderPlan } from "../render-plan.js";
import { pollUntilIdle, refuseWhileGenerating } from "../../app/design-status.js";
import { idleWaitView } from "../wait-view.js";
import { warnSink } from "../folder-pull.js";
import { recordVersionIntent } from "../../state/version-intent.js";
import type { PromptResult } from "../../app/json-documents.js";

interface PromptFlags {
  dir?: string;
  image?: string[];
  wait?: boolean;
}

/** The `--json` document of `prompt`. */
export type { PromptResult } from "../../app/json-documents.js";

/** `mpsync prompt`. */
export async function runPrompt(ctx: CommandContext, text: string, flags: PromptFlags): Promise<number> {
  if (text.trim() === "") throw new MpsyncError("USAGE", "the prompt is empty");
  if ((flags.image ?? []).length > 0) {
    throw new MpsyncError("USAGE", "prompt --image is not supported: the service takes reference images only when a design is created", {
      hint: 'create a design from the image instead: mpsync create --prompt "..." --image URL (or init DIR --create --image URL)',
    });
  }
  const body: PromptRequest = { prompt: text };
  const mapping = await ctx.runtime.singleMapping(flags.dir);
  const client = await ctx.runtime.client();
  const editorId = await refuseWhileGenerating(ctx.runtime, mapping, { name: "mpsync prompt", notDone: "the prompt was not sent", emit: warnSink(ctx) });

  const before = await activeArtifactOrNull(client, editorId);
  // The generation starts after every PATCH answered so far: its version is built on them (sync/other-writers.ts).
  await recordVersionIntent(mapping.root, "prompt", ctx.runtime.clock.now());
  const { requestId } = await client.sendPrompt(editorId, body);
  const result: PromptResult = {
    ok: true,
    dir: mapping.dir,
    editorId,
    requestId,
    waited: false,
    newVersion: undefined,
    activeArtifactId: undefined,
    reply: undefined,
    pull: undefined,
    pulledBy: undefined,
  };
  if (flags.wait !== true) {
    // Only a live daemon on this folder pulls by itself; otherwise say what to run.
    const lock = await readFolderLock(mapping.root);
    const watcher = lock !== undefined && isLockHolderAlive(lock) ? lock : undefined;
    ctx.out.result("prompt", { ...result, pulledBy: watcher === undefined ? undefined : `${watcher.command} (pid ${watcher.pid})` }, () => {
      ctx.out.success(`prompt sent to ${editorId}: generating`);
      const next =
        watcher !== undefined
          ? `  the running ${watcher.command} (pid ${watcher.pid}) pulls the result when it is ready`
          : `  when it is ready: mpsync pull ${mapping.label} (mpsync status tells when; or send prompts with --wait)`;
      ctx.out.info(ctx.out.c.dim(next));
    });
    return EXIT.ok;
  }
  return finishWaiting(ctx, mapping, client, result, before);
}

async function finishWaiting(ctx: CommandContext, mapping: Mapping, client: V3Client, result: PromptResult, before: string | null): Promise<number> {
  const status = await pollUntilIdle(ctx.runtime, result.editorId, idleWaitView(ctx));
  result.waited = true;
  result.activeArtifactId = status.activeArtifactId ?? undefined;
  result.newVersion = status.activeArtifactId !== null && status.activeArtifactId !== before;
  result.reply = await latestReply(client, result.editorId);
  if (result.newVersion) {
    const done = await pullMappedIfFree(ctx.runtime, mapping, "mpsync prompt", shownPull(ctx));
    result.pull = done.pull;
    result.pulledBy = done.pulledBy;
  }
  result.ok = result.newVersion && result.pull?.halted === undefined;
  ctx.out.result("prompt", result, () => renderWaited(ctx, result));
  if (!result.newVersion) return EXIT.failure;
  return pullExitCode(result.pull);
}

function renderWaited(ctx: CommandContext, r: PromptResult): void {
  const c = ctx.out.c;
  if (r.reply !== undefined) ctx.out.info(`${c.magenta("assistant:")} ${r.reply}`);
  if (r.newVersion !== true) {
    ctx.out.warn("generation ended without a new version: nothing to pull");
    return;
  }
  if (r.pull !== undefined) renderPlan(ctx.out, { ...r.pull, dir: r.dir }, false, r.pull.elapsedMs);
  else ctx.out.info(`${r.pulledBy ?? "another mpsync process"} holds ${ctx.out.folder(r.dir)}: it will pull the new version`);
}

/** The active artifact's id, or null when the design has none yet. */
async function activeArtifactOrNull(client: V3Client, editorId: string): Promise<string | null> {
  try {
    return (await client.getActiveArtifact(editorId)).artifactId;
  } catch (err) {
    if (err instanceof MpsyncError && err.code === "NO_ARTIFACT") return null;
    throw err;
  }
}

/**
 * The assistant's reply to our prompt: the newest items come first, so the reply is the first
 * assistant item before our own prompt (the first user item). Only its text parts count.
 */
async function latestReply(client: V3Client, editorId: string): Promise<string | undefined> {
  try {
    const page = await client.listMessages(editorId, 0);
    for (const item of page.items) {
      if (item.role === "user") return undefined;
      const text = item.role === "assistant" ? messageText(item).trim() : "";
      if (text !== "") return text;
    }
    return undefined;
  } catch {
    // The reply is a courtesy: the pull matters more than a failed chat read.
    return undefined;
  }
}
