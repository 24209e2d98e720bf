/**
 * `mpsync init`'s use case: map a folder to a design (an existing one, or one created here) in a
 * new or existing .syncrc, then pull it unless a running daemon takes the folder first. What it
 * shows while it runs goes through the caller's `InitView`; nothing here prints.
 */
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { CreateDesignRequest, Design } from "../api/schemas.js";
import { MpsyncError, isErrno } from "../core/errors.js";
import type { LoadedConfig } from "../config/load-config.js";
import { folderLabel } from "../config/mappings.js";
import { isLoopbackUrl, LOOPBACK_DEFAULT_POLL_SEC, LOOPBACK_DEFAULT_REMOTE_CHECK_SEC } from "../config/poll-floor.js";
import { DEFAULT_BASE_URL } from "../config/schema.js";
import { addDesignMapping, toConfigRelativeDir, writeConfig } from "../config/write-config.js";
import type { Runtime } from "../runtime.js";
import { isBareEditorId, normalizeDesignUrl } from "../sync/resolve-design.js";
import { pollUntilIdle, type IdleWatch } from "./design-status.js";
import { pullMappedIfFree, type PullOptions, type PullProgress, type TimedSummary } from "./folder-pull.js";

/** Entries that do not make a folder "non-empty": tool state, VCS, OS litter, the config itself. */
const NEUTRAL_ENTRIES = new Set([".mpsync", ".git", ".DS_Store", ".syncrc", ".syncrc.json"]);

/** What to map where. */
export interface InitRequest {
  /** The folder as the user named it (from `cwd`). */
  dir: string;
  cwd: string;
  /** `--config` or `MPSYNC_CONFIG`: the config to extend or create. */
  configPath: string | undefined;
  /** An existing design's editorId or URL; else `create` builds the new design's request (after the folder's checks). */
  design: string | undefined;
  create: (() => Promise<CreateDesignRequest>) | undefined;
  /** Map a folder that already holds files (reconcile: differences become conflicts). */
  force: boolean;
}

/** The mapping written to .syncrc. */
export interface WrittenMapping {
  path: string;
  created: boolean;
  /** The folder as .syncrc records it. */
  dir: string;
}

/** How far an init got (an interrupted init says it). */
export interface InitStage {
  created?: Design | undefined;
  mapped?: { label: string; editorId: string; configPath: string } | undefined;
  progress: PullProgress;
}

/** What an init shows while it runs. */
export interface InitView {
  created(design: Design): void;
  mapped(label: string, editorId: string, written: WrittenMapping): void;
  /** A warning that does not stop the init. */
  warn(message: string): void;
  idle: IdleWatch;
  pull: PullOptions;
}

/** What an init did: `noVersion` (a prompted design with nothing to pull), `pulledBy` (a daemon pulls it) or `pull`. */
export interface InitOutcome {
  label: string;
  editorId: string;
  written: WrittenMapping;
  created: Design | undefined;
  noVersion: boolean;
  pull: TimedSummary | undefined;
  pulledBy: string | undefined;
}

/** Maps `request.dir` to a design and pulls it; `stage` records how far it got. */
export async function initFolder(runtime: Runtime, request: InitRequest, view: InitView, stage: InitStage): Promise<InitOutcome> {
  const root = resolve(request.cwd, request.dir);
  const label = folderLabel(root, request.cwd);
  const target = await configTarget(runtime, request);
  refuseMapped(target.loaded, root, request.cwd);
  if (!request.force) await refuseNonEmpty(root, request.dir);

  const { editorId, created, noVersion } = await obtainDesign(runtime, request, view, stage);
  refuseMappedDesign(target.loaded, editorId, request.design, request.cwd);
  const written = await writeMapping(runtime, target, request, root, editorId, view);
  stage.mapped = { label, editorId, configPath: written.path };
  view.mapped(label, editorId, written);
  const outcome = { label, editorId, written, created, noVersion, pull: undefined, pulledBy: undefined };
  if (noVersion) return outcome;
  // A running `mpsync watch` sees the new mapping in .syncrc and may take the folder first:
  // then it pulls the design, and init has nothing left to do.
  const { pull, pulledBy } = await pullMappedIfFree(runtime, { dir: written.dir, design: editorId, root, label }, "mpsync init", view.pull);
  return { ...outcome, pull, pulledBy };
}

interface ConfigTarget {
  /** The config file to extend or create; undefined: search upward, else `cwd/.syncrc`. */
  path: string | undefined;
  loaded: LoadedConfig | undefined;
}

async function configTarget(runtime: Runtime, request: InitRequest): Promise<ConfigTarget> {
  if (request.configPath !== undefined) {
    const path = resolve(request.cwd, request.configPath);
    // A named config that does not exist yet is the one init creates.
    if ((await stat(path).catch(() => undefined)) === undefined) return { path, loaded: undefined };
  }
  const loaded = await runtime.configIfAny();
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
  runtime: Runtime,
  request: InitRequest,
  view: InitView,
  stage: InitStage,
): Promise<{ editorId: string; created: Design | undefined; noVersion: boolean }> {
  const client = await runtime.client();
  if (request.design !== undefined) {
    const editorId = isBareEditorId(request.design) ? request.design : await client.resolveUrl(normalizeDesignUrl(request.design));
    // Fails with 403/404 before anything is written.
    await client.getActiveArtifact(editorId);
    return { editorId, created: undefined, noVersion: false };
  }
  const body = (await request.create?.()) ?? {};
  const design = await client.createDesign(body);
  stage.created = design;
  view.created(design);
  // A prompted design has no artifact until its first generation ends (status answers
  // activeArtifactId null meanwhile); one that ended without a version has nothing to pull.
  if (body.prompt === undefined) return { editorId: design.editorId, created: design, noVersion: false };
  const idle = await pollUntilIdle(runtime, design.editorId, view.idle);
  return { editorId: design.editorId, created: design, noVersion: idle.activeArtifactId === null };
}

async function writeMapping(
  runtime: Runtime,
  target: ConfigTarget,
  request: InitRequest,
  root: string,
  editorId: string,
  view: InitView,
): Promise<WrittenMapping> {
  const file = target.path ?? join(request.cwd, ".syncrc");
  if (target.loaded === undefined && isInside(file, root)) {
    // The config would sit inside the mirrored folder: keep it out of the design.
    const stored = toConfigRelativeDir(root, dirname(file));
    const anchored = `/${relative(root, file).split(sep).join("/")}`;
    await writeConfig(file, { ...serviceSettings(runtime), designs: [{ dir: stored, design: editorId }], ignore: [anchored] });
    return { path: file, created: true, dir: stored };
  }
  const added = await addDesignMapping(target.path, { dir: request.dir, design: editorId }, request.cwd, serviceSettings(runtime));
  if (isInside(added.path, root))
    view.warn(`${basename(added.path)} lies inside ${request.dir}: add "/${basename(added.path)}" to "ignore" so it is not synced`);
  return { path: added.path, created: added.created, dir: added.mapping.dir };
}

/**
 * What a new .syncrc records of the service init used: its address when it is not the real
 * service's (a new shell without MPSYNC_BASE_URL must not target the real service), and on
 * a loopback address (the emulator) a status poll every second and a content check every few
 * seconds, so `prompt --wait` follows a generation of seconds and a teammate's web edit
 * arrives as in the demo, instead of waiting out the 60 s defaults.
 */
function serviceSettings(runtime: Runtime): { baseUrl?: string; pollIntervalSec?: number; remoteCheckSec?: number } {
  const baseUrl = runtime.baseUrl();
  if (baseUrl === DEFAULT_BASE_URL) return {};
  if (!isLoopbackUrl(baseUrl)) return { baseUrl };
  return { baseUrl, pollIntervalSec: LOOPBACK_DEFAULT_POLL_SEC, remoteCheckSec: LOOPBACK_DEFAULT_REMOTE_CHECK_SEC };
}

/** True when `path` is `folder` or below it. */
function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}
