/** `mpsync init [DIR] --design ID_OR_URL | --create ...`: write or extend .syncrc, then pull. */
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { MpsyncError, isErrno } from "../../core/errors.js";
import type { Design } from "../../api/schemas.js";
import { displayPath, type LoadedConfig } from "../../config/load-config.js";
import { folderLabel } from "../../config/mappings.js";
import { addDesignMapping, toConfigRelativeDir, writeConfig } from "../../config/write-config.js";
import { isBareEditorId, normalizeDesignUrl } from "../../sync/resolve-design.js";
import type { CommandContext } from "../context.js";
import { buildCreateRequest, createDesign, type CreateFlags } from "../design-request.js";
import { pullExitCode, shownPull } from "../folder-pull.js";
import { newPullProgress, pullMappedIfFree, type PullProgress, type TimedSummary } from "../../app/folder-pull.js";
import { EXIT } from "../exit-codes.js";
import { renderPlan } from "../render-plan.js";
import { pollUntilIdle } from "../../app/design-status.js";
import { idleWaitView } from "../wait-view.js";
import { describeProgress, untilInterrupted } from "../interrupt.js";
import { DEFAULT_BASE_URL } from "../../config/schema.js";
import { isLoopbackUrl, LOOPBACK_DEFAULT_POLL_SEC } from "../../config/poll-floor.js";

interface InitFlags extends CreateFlags {
  dir?: string;
  design?: string;
  create?: boolean;
  force?: boolean;
}

/** Entries that do not make a folder "non-empty": tool state, VCS, OS litter, the config itself. */
const NEUTRAL_ENTRIES = new Set([".mpsync", ".git", ".DS_Store", ".syncrc", ".syncrc.json"]);

/** `mpsync init`. */
export function runInit(ctx: CommandContext, dir: string | undefined, flags: InitFlags): Promise<number> {
  if (dir !== undefined && flags.dir !== undefined && dir !== flags.dir) {
    throw new MpsyncError("USAGE", `two folders given (${dir} and --dir ${flags.dir}): name one`);
  }
  // A pasted id or URL often carries a space or a newline at either end.
  const design = flags.design?.trim();
  return initFolder(ctx, dir ?? flags.dir ?? ".", design === undefined ? flags : { ...flags, design });
}

/** How far an init got, for the line Ctrl-C prints. */
interface InitStage {
  created?: Design | undefined;
  mapped?: { label: string; editorId: string; configPath: string } | undefined;
  progress: PullProgress;
}

async function initFolder(ctx: CommandContext, dir: string, flags: InitFlags): Promise<number> {
  const stage: InitStage = { progress: newPullProgress() };
  return untilInterrupted(
    ctx,
    () => runInitWork(ctx, dir, flags, stage),
    () => describeInitStage(ctx, dir, stage),
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
  const root = resolve(ctx.io.cwd, dir);
  const label = folderLabel(root, ctx.io.cwd);
  const target = await configTarget(ctx);
  refuseMapped(target.loaded, root, ctx.io.cwd);
  if (flags.force !== true) await refuseNonEmpty(root, dir);

  const { editorId, created, noVersion } = await obtainDesign(ctx, flags, stage);
  refuseMappedDesign(target.loaded, editorId, flags.design, ctx.io.cwd);
  const written = await writeMapping(ctx, target, dir, root, editorId);
  stage.mapped = { label, editorId, configPath: written.path };
  ctx.out.labelFolders([{ dir: written.dir, label }]);
  ctx.out.success(`mapped ${label} to ${editorId} in ${displayPath(written.path, ctx.io.cwd)}${written.created ? " (created)" : ""}`);
  if (noVersion) {
    ctx.out.result(
      "init",
      { ok: false, dir: written.dir, editorId, config: { path: written.path, created: written.created }, design: created, pull: undefined },
      () => {
        ctx.out.warn(`the design's first generation ended without a version: nothing to pull yet into ${label}`);
        ctx.out.info(ctx.out.c.dim(`next: mpsync prompt "..." --dir ${label} --wait`));
      },
    );
    return EXIT.failure;
  }

  // A running `mpsync watch` sees the new mapping in .syncrc and may take the folder first:
  // then it pulls the design, and init has nothing left to do.
  const { pull: summary, pulledBy } = await pullMappedIfFree(
    ctx.runtime,
    { dir: written.dir, design: editorId, root, label },
    "mpsync init",
    shownPull(ctx, { send: flags.force === true, progress: stage.progress }),
  );
  if (summary === undefined) {
    ctx.out.result("init", { ok: true, dir: written.dir, editorId, config: { path: written.path, created: written.created }, design: created, pulledBy }, () =>
      ctx.out.info(`${label} is synced by ${pulledBy ?? "another mpsync process"}: it pulls the design`),
    );
    return EXIT.ok;
  }
  report(ctx, { dir: written.dir, editorId, written, created, summary });
  return pullExitCode(summary);
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

interface ConfigTarget {
  /** The config file to extend or create; undefined: search upward, else `cwd/.syncrc`. */
  path: string | undefined;
  loaded: LoadedConfig | undefined;
}

async function configTarget(ctx: CommandContext): Promise<ConfigTarget> {
  const explicit = nonEmpty(ctx.flags.config) ?? nonEmpty(ctx.io.env["MPSYNC_CONFIG"]);
  if (explicit !== undefined) {
    const path = resolve(ctx.io.cwd, explicit);
    // A named config that does not exist yet is the one init creates.
    if ((await stat(path).catch(() => undefined)) === undefined) return { path, loaded: undefined };
  }
  const loaded = await ctx.runtime.configIfAny();
  return { path: loaded?.path, loaded };
}

function refuseMapped(loaded: LoadedConfig | undefined, root: string, cwd: string): void {
  for (const d of loaded?.config.designs ?? []) {
    if (d.root === root) {
      throw new MpsyncError("USAGE", `${folderLabel(d.root, cwd)} is already mapped to ${d.design} in ${loaded?.path ?? ".syncrc"}`, {
        hint: "run mpsync pull to update it, or pick another folder",
      });
    }
    if (isInside(root, d.root) || isInside(d.root, root)) {
      throw new MpsyncError("USAGE", `${folderLabel(root, cwd)} overlaps the mapped folder ${folderLabel(d.root, cwd)}: mapped folders must not nest`);
    }
  }
}

/**
 * One design in two folders of one .syncrc: each folder would push its own edits over the
 * other's and pull the other's back, a loop of conflicts. One folder per design.
 */
function refuseMappedDesign(loaded: LoadedConfig | undefined, editorId: string, given: string | undefined, cwd: string): void {
  const same = loaded?.config.designs.find((d) => d.design.trim() === editorId || (given !== undefined && d.design.trim() === given));
  if (same === undefined) return;
  throw new MpsyncError(
    "USAGE",
    `design ${editorId} is already mapped to ${folderLabel(same.root, cwd)} in ${loaded?.path ?? ".syncrc"}: one folder per design`,
    {
      hint: "two folders of one design push over each other; work in that folder, or use another .syncrc for a second copy",
    },
  );
}

async function refuseNonEmpty(root: string, dir: string): Promise<void> {
  const entries = await readdir(root).catch((err: unknown) => {
    if (isErrno(err, "ENOENT")) return [];
    if (isErrno(err, "ENOTDIR")) throw new MpsyncError("USAGE", `${dir} is a file, not a folder`);
    throw err;
  });
  const content = entries.filter((e) => !NEUTRAL_ENTRIES.has(e));
  if (content.length === 0) return;
  throw new MpsyncError("USAGE", `${dir} is not empty (${content.slice(0, 3).join(", ")}${content.length > 3 ? ", ..." : ""})`, {
    hint: "pick an empty folder, or add --force to reconcile: files that differ become conflicts, nothing is overwritten",
  });
}

async function obtainDesign(
  ctx: CommandContext,
  flags: InitFlags,
  stage: InitStage,
): Promise<{ editorId: string; created: Design | undefined; noVersion: boolean }> {
  const client = await ctx.runtime.client();
  if (flags.design !== undefined) {
    const editorId = isBareEditorId(flags.design) ? flags.design : await client.resolveUrl(normalizeDesignUrl(flags.design));
    // Fails with 403/404 before anything is written.
    await client.getActiveArtifact(editorId);
    return { editorId, created: undefined, noVersion: false };
  }
  const body = await buildCreateRequest(ctx, flags);
  const design = await createDesign(ctx, body);
  stage.created = design;
  ctx.out.success(`created design ${design.editorId} (${design.editorUrl})`);
  // A prompted design has no artifact until its first generation ends (status answers
  // activeArtifactId null meanwhile); one that ended without a version has nothing to pull.
  if (body.prompt === undefined) return { editorId: design.editorId, created: design, noVersion: false };
  const idle = await pollUntilIdle(ctx.runtime, design.editorId, idleWaitView(ctx));
  return { editorId: design.editorId, created: design, noVersion: idle.activeArtifactId === null };
}

interface Written {
  path: string;
  created: boolean;
  dir: string;
}

async function writeMapping(ctx: CommandContext, target: ConfigTarget, dir: string, root: string, editorId: string): Promise<Written> {
  const file = target.path ?? join(ctx.io.cwd, ".syncrc");
  if (target.loaded === undefined && isInside(file, root)) {
    // The config would sit inside the mirrored folder: keep it out of the design.
    const stored = toConfigRelativeDir(root, dirname(file));
    const anchored = `/${relative(root, file).split(sep).join("/")}`;
    await writeConfig(file, { ...serviceSettings(ctx), designs: [{ dir: stored, design: editorId }], ignore: [anchored] });
    return { path: file, created: true, dir: stored };
  }
  const added = await addDesignMapping(target.path, { dir, design: editorId }, ctx.io.cwd, serviceSettings(ctx));
  if (isInside(added.path, root)) ctx.out.warn(`${basename(added.path)} lies inside ${dir}: add "/${basename(added.path)}" to "ignore" so it is not synced`);
  return { path: added.path, created: added.created, dir: added.mapping.dir };
}

function report(ctx: CommandContext, r: { dir: string; editorId: string; written: Written; created: Design | undefined; summary: TimedSummary }): void {
  const doc = {
    ok: r.summary.halted === undefined,
    dir: r.dir,
    editorId: r.editorId,
    config: { path: r.written.path, created: r.written.created },
    design: r.created,
    pull: r.summary,
  };
  ctx.out.result("init", doc, () => {
    renderPlan(ctx.out, { ...r.summary, dir: r.dir }, false, r.summary.elapsedMs);
    ctx.out.info(ctx.out.c.dim(`next: mpsync watch   (two-way sync until Ctrl-C)`));
  });
}

/**
 * What a new .syncrc records of the service init used: its address when it is not the real
 * service's (a new shell without MPSYNC_BASE_URL must not target the real service), and on
 * a loopback address (the emulator) a status poll every second, so `prompt --wait` follows
 * a generation of seconds instead of waiting out the 60 s default.
 */
function serviceSettings(ctx: CommandContext): { baseUrl?: string; pollIntervalSec?: number } {
  const baseUrl = ctx.runtime.baseUrl();
  if (baseUrl === DEFAULT_BASE_URL) return {};
  return { baseUrl, ...(isLoopbackUrl(baseUrl) ? { pollIntervalSec: LOOPBACK_DEFAULT_POLL_SEC } : {}) };
}

/** True when `path` is `folder` or below it. */
function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
