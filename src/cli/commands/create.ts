/** `mpsync create`: create a design and print its editorId and URLs. */
import type { DesignStatus } from "../../api/schemas.js";
import type { CommandContext } from "../context.js";
import { buildCreateRequest, createDesign, type CreateFlags } from "../design-request.js";
import { pollUntilIdle } from "../../app/design-status.js";
import { idleWaitView } from "../wait-view.js";
import { EXIT } from "../exit-codes.js";
import { shownLink } from "../links.js";

interface CreateCommandFlags extends CreateFlags {
  wait?: boolean;
}

/** `mpsync create`. */
export async function runCreate(ctx: CommandContext, flags: CreateCommandFlags): Promise<number> {
  const body = await buildCreateRequest(ctx, flags);
  const design = await createDesign(ctx, body);
  let finished: DesignStatus | undefined;
  if (flags.wait === true && body.prompt !== undefined) {
    ctx.out.info(`created ${design.editorId}; waiting for the generation to finish`);
    finished = await pollUntilIdle(ctx.runtime, design.editorId, idleWaitView(ctx));
  }
  const doc = {
    ok: true as const,
    editorId: design.editorId,
    editorUrl: design.editorUrl,
    previewUrl: design.previewUrl,
    activeArtifactId: finished?.activeArtifactId ?? design.activeArtifactId,
    generating: body.prompt !== undefined && finished === undefined,
    /** With --wait: false when the first generation ended without producing a version. */
    generated: finished === undefined ? undefined : finished.activeArtifactId !== null,
  };
  ctx.out.result("create", doc, () => {
    const c = ctx.out.c;
    ctx.out.success(`created design ${c.bold(doc.editorId)}`);
    const baseUrl = ctx.runtime.baseUrl();
    ctx.out.info(`  editor:  ${shownLink(baseUrl, doc.editorUrl)}`);
    ctx.out.info(`  preview: ${doc.previewUrl === null ? c.dim("not published yet (mpsync publish after init)") : shownLink(baseUrl, doc.previewUrl)}`);
    if (doc.generating) ctx.out.info(c.dim("  generating in the background; add --wait to wait for it"));
    if (doc.generated === false) ctx.out.warn("its first generation ended without a version: nothing to pull yet (try another prompt: mpsync prompt)");
    ctx.out.info(c.dim(`  next: mpsync init <dir> --design ${doc.editorId}`));
  });
  return doc.generated === false ? EXIT.failure : EXIT.ok;
}
