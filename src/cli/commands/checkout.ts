/** `mpsync checkout VERSION` and `mpsync snapshot NAME`: new active artifacts cloned from old ones. */
import type { V3Client } from "../../api/client-types.js";
import { hasCode, MpsyncError } from "../../core/errors.js";
import type { Mapping } from "../../runtime.js";
import type { CommandContext } from "../context.js";
import { pullExitCode, shownPull, warnSink } from "../folder-pull.js";
import { pullMappedIfFree, type TimedSummary } from "../../app/folder-pull.js";
import { renderPlan } from "../render-plan.js";
import { refuseWhileGenerating } from "../../app/design-status.js";
import { findVersion, openMapped } from "./versions.js";
import { recordVersionIntent } from "../../state/version-intent.js";

interface CheckoutFlags {
  dir?: string;
  name?: string;
}

/** `mpsync checkout`. */
export async function runCheckout(ctx: CommandContext, version: string, flags: CheckoutFlags): Promise<number> {
  const { mapping, editorId } = await openMapped(ctx, flags.dir);
  const client = await ctx.runtime.client();
  const source = /^v\d+$/.test(version) ? await findVersion(client, editorId, version) : undefined;
  const sourceArtifactId = source?.artifactId ?? version;
  const fromLabel = source?.versionLabel ?? version;
  // A checkout during a generation would be overtaken by the generation's result.
  await refuseWhileGenerating(ctx.runtime, mapping, { name: "mpsync checkout", notDone: "nothing was checked out", emit: warnSink(ctx) });
  // A version the user chooses replaces every edit pushed so far by decision (sync/other-writers.ts).
  await recordVersionIntent(mapping.root, "checkout", ctx.runtime.clock.now());
  const artifact = await client.createArtifact(editorId, { sourceArtifactId, name: flags.name ?? `checkout of ${fromLabel}` }).catch(async (err: unknown) => {
    // An artifactId the service does not know: the version is what is missing, not the design.
    if (source !== undefined || !hasCode(err, "NOT_FOUND")) throw err;
    const newest = (await client.listVersions(editorId, 0)).versions[0]?.versionLabel;
    throw new MpsyncError("NOT_FOUND", `no version "${version}" in design ${editorId}`, {
      hint: `name a version as vN${newest === undefined ? "" : ` (they go up to ${newest})`}, or an artifactId: see mpsync versions`,
      cause: err,
    });
  });
  const label = await labelOf(client, editorId, artifact.artifactId);
  const { pull, pulledBy } = await pullIfFree(ctx, mapping);
  const doc = {
    ok: pull?.halted === undefined,
    dir: mapping.dir,
    editorId,
    from: { versionLabel: source?.versionLabel, artifactId: sourceArtifactId },
    artifactId: artifact.artifactId,
    versionLabel: label,
    pull,
    pulledBy,
  };
  ctx.out.result("checkout", doc, () => {
    ctx.out.success(`${fromLabel} is active again as ${label ?? artifact.artifactId}`);
    if (pull !== undefined) renderPlan(ctx.out, { ...pull, dir: mapping.dir }, false, pull.elapsedMs);
    else ctx.out.info(`${pulledBy ?? "another mpsync process"} holds ${ctx.out.folder(mapping.dir)}: it will pull the checked-out version`);
  });
  return pullExitCode(pull);
}

/** `mpsync snapshot`. */
export async function runSnapshot(ctx: CommandContext, name: string, flags: { dir?: string }): Promise<void> {
  if (name.trim() === "") throw new MpsyncError("USAGE", "the snapshot name is empty");
  const { mapping, editorId } = await openMapped(ctx, flags.dir);
  const client = await ctx.runtime.client();
  const active = await client.getActiveArtifact(editorId);
  const artifact = await client.createArtifact(editorId, { sourceArtifactId: active.artifactId, name });
  const label = await labelOf(client, editorId, artifact.artifactId);
  const doc = {
    ok: true as const,
    dir: mapping.dir,
    editorId,
    name,
    sourceArtifactId: active.artifactId,
    artifactId: artifact.artifactId,
    versionLabel: label,
  };
  ctx.out.result("snapshot", doc, () => ctx.out.success(`saved ${label ?? artifact.artifactId} "${name}"`));
}

async function pullIfFree(ctx: CommandContext, mapping: Mapping): Promise<{ pull: TimedSummary | undefined; pulledBy: string | undefined }> {
  return pullMappedIfFree(ctx.runtime, mapping, "mpsync checkout", shownPull(ctx));
}

/** The label the service gave `artifactId` (it is the newest version, so page 0 has it). */
async function labelOf(client: V3Client, editorId: string, artifactId: string): Promise<string | undefined> {
  const page = await client.listVersions(editorId, 0);
  return page.versions.find((v) => v.artifactId === artifactId)?.versionLabel;
}
