/** `mpsync init [DIR] --design ID_OR_URL | --create ...`: write or extend .syncrc, then pull (src/app/init-folder.ts). */
import { MpsyncError } from "../../core/errors.js";
import { displayPath } from "../../config/load-config.js";
import { newPullProgress } from "../../app/folder-pull.js";
import { initFolder, type InitOutcome, type InitRequest, type InitStage } from "../../app/init-folder.js";
import type { CommandContext } from "../context.js";
import { buildCreateRequest, type CreateFlags } from "../design-request.js";
import { pullExitCode, shownPull } from "../folder-pull.js";
import { EXIT } from "../exit-codes.js";
import { renderPlan } from "../render-plan.js";
import { idleWaitView } from "../wait-view.js";
import { shownLink } from "../links.js";
import { describeProgress, untilInterrupted } from "../interrupt.js";

interface InitFlags extends CreateFlags {
  dir?: string;
  design?: string;
  create?: boolean;
  force?: boolean;
}

/** `mpsync init`. */
export function runInit(ctx: CommandContext, dir: string | undefined, flags: InitFlags): Promise<number> {
  if (dir !== undefined && flags.dir !== undefined && dir !== flags.dir) {
    throw new MpsyncError("USAGE", `two folders given (${dir} and --dir ${flags.dir}): name one`);
  }
  // A pasted id or URL often carries a space or a newline at either end.
  const design = flags.design?.trim();
  const folder = dir ?? flags.dir ?? ".";
  const stage: InitStage = { progress: newPullProgress() };
  return untilInterrupted(
    ctx,
    () => runInitWork(ctx, folder, design === undefined ? flags : { ...flags, design }, stage),
    () => describeInitStage(ctx, folder, stage),
  );
}

/** What an interrupted init leaves, and the command that finishes (or undoes) it. */
function describeInitStage(ctx: CommandContext, dir: string, stage: InitStage): string {
  const { mapped, created } = stage;
  if (mapped !== undefined) {
    const where = displayPath(mapped.configPath, ctx.io.cwd);
    return `${mapped.label} is mapped to ${mapped.editorId} in ${where}, but its pull stopped ${describeProgress(stage.progress)}; run "mpsync pull ${mapped.label}" to finish (or remove the mapping from ${where} to undo)`;
  }
  if (created !== undefined) {
    return `design ${created.editorId} was created (${created.editorUrl}) but not mapped: nothing was written; run "mpsync init ${dir} --design ${created.editorId}" to map and pull it`;
  }
  return `nothing was written; run the same mpsync init again`;
}

async function runInitWork(ctx: CommandContext, dir: string, flags: InitFlags, stage: InitStage): Promise<number> {
  checkFlags(flags);
  const request: InitRequest = {
    dir,
    cwd: ctx.io.cwd,
    configPath: nonEmpty(ctx.flags.config) ?? nonEmpty(ctx.io.env["MPSYNC_CONFIG"]),
    design: flags.design,
    create: flags.create === true ? () => buildCreateRequest(ctx, flags) : undefined,
    force: flags.force === true,
  };
  const outcome = await initFolder(
    ctx.runtime,
    request,
    {
      created: (design) => ctx.out.success(`created design ${design.editorId}: ${shownLink(ctx.runtime.baseUrl(), design.editorUrl)}`),
      mapped: (label, editorId, written) => {
        ctx.out.labelFolders([{ dir: written.dir, label }]);
        ctx.out.success(`mapped ${label} to ${editorId} in ${displayPath(written.path, ctx.io.cwd)}${written.created ? " (created)" : ""}`);
      },
      warn: (message) => ctx.out.warn(message),
      idle: idleWaitView(ctx),
      pull: shownPull(ctx, { send: request.force, progress: stage.progress }),
    },
    stage,
  );
  return report(ctx, outcome);
}

function checkFlags(flags: InitFlags): void {
  if ((flags.design === undefined) === (flags.create !== true)) {
    throw new MpsyncError("USAGE", "init needs exactly one of --design ID_OR_URL or --create", { hint: "see mpsync init --help" });
  }
  const createOnly = [flags.name, flags.prompt, flags.template, flags.designSystem, flags.image].some((v) => v !== undefined);
  if (flags.design !== undefined && createOnly) {
    throw new MpsyncError("USAGE", "--name, --prompt, --template, --design-system and --image go with --create, not --design");
  }
}

function report(ctx: CommandContext, o: InitOutcome): number {
  const base = { dir: o.written.dir, editorId: o.editorId, config: { path: o.written.path, created: o.written.created }, design: o.created };
  if (o.noVersion) {
    ctx.out.result("init", { ok: false, ...base, pull: undefined }, () => {
      ctx.out.warn(`the design's first generation ended without a version: nothing to pull yet into ${o.label}`);
      ctx.out.info(ctx.out.c.dim(`next: mpsync prompt "..." --dir ${o.label} --wait`));
    });
    return EXIT.failure;
  }
  const summary = o.pull;
  if (summary === undefined) {
    ctx.out.result("init", { ok: true, ...base, pulledBy: o.pulledBy }, () =>
      ctx.out.info(`${o.label} is synced by ${o.pulledBy ?? "another mpsync process"}: it pulls the design`),
    );
    return EXIT.ok;
  }
  ctx.out.result("init", { ok: summary.halted === undefined, ...base, pull: summary }, () => {
    renderPlan(ctx.out, { ...summary, dir: o.written.dir }, false, summary.elapsedMs);
    ctx.out.info(ctx.out.c.dim(`next: mpsync watch   (two-way sync until Ctrl-C)`));
  });
  return pullExitCode(summary);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
