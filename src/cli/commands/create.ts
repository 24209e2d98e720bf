/** `mpsync create`: create a design and print its editorId and URLs. */
import type { Command } from "commander";
import type { DesignStatus } from "../../api/schemas.js";
import { action, type ExitHolder } from "../program.js";
import type { CliIo, CommandContext } from "../context.js";
import { addCreateOptions, buildCreateRequest, createDesign, type CreateFlags } from "../design-request.js";
import { pollUntilIdle } from "../wait-idle.js";
import { EXIT } from "../exit-codes.js";

interface CreateCommandFlags extends CreateFlags {
  wait?: boolean;
}

/** Registers `create`. */
export function registerCreate(program: Command, io: CliIo, exit: ExitHolder): void {
  const command = program
    .command("create")
    .description("create a design (blank, from a template, or generated from a prompt) and print its editorId and URLs");
  addCreateOptions(command)
    .option("--wait", "with --prompt: poll until the generation ends")
    .addHelpText(
      "after",
      `
To mirror it into a folder afterwards: mpsync init DIR --design <editorId>
(or do both at once: mpsync init DIR --create ...).

Examples:
  $ mpsync create --name "Scratch"
  $ mpsync create --prompt "a login form with social buttons" --image https://example.com/ref.png --wait
  $ mpsync create --template abc123 --design-system ds-0f3c... --json`,
    )
    .action(action(io, exit, (ctx, flags: CreateCommandFlags) => runCreate(ctx, flags)));
}

async function runCreate(ctx: CommandContext, flags: CreateCommandFlags): Promise<number> {
  const body = await buildCreateRequest(ctx, flags);
  const design = await createDesign(ctx, body);
  let finished: DesignStatus | undefined;
  if (flags.wait === true && body.prompt !== undefined) {
    ctx.out.info(`created ${design.editorId}; waiting for the generation to finish`);
    finished = await pollUntilIdle(ctx, design.editorId);
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
    ctx.out.info(`  editor:  ${doc.editorUrl}`);
    ctx.out.info(`  preview: ${doc.previewUrl ?? c.dim("not published yet (mpsync publish after init)")}`);
    if (doc.generating) ctx.out.info(c.dim("  generating in the background; add --wait to wait for it"));
    if (doc.generated === false) ctx.out.warn("its first generation ended without a version: nothing to pull yet (try another prompt: mpsync prompt)");
    ctx.out.info(c.dim(`  next: mpsync init <dir> --design ${doc.editorId}`));
  });
  return doc.generated === false ? EXIT.failure : EXIT.ok;
}
