/** `mpsync versions`: the design's version history, newest first, `*` on the active one. */
import type { V3Client } from "../../api/client-types.js";
import { MpsyncError } from "../../core/errors.js";
import type { Version } from "../../api/schemas.js";
import type { Mapping } from "../../runtime.js";
import type { CommandContext } from "../context.js";
import type { Output } from "../output.js";
import { formatAge, toEpochMs } from "../relative-time.js";
import { openReadOnly } from "../../app/folder.js";

interface VersionsFlags {
  dir?: string;
  all?: boolean;
}

/** The mapping a single-design command acts on, with its editorId (a URL resolved once, cached). */
export async function openMapped(ctx: CommandContext, dir: string | undefined): Promise<{ mapping: Mapping; editorId: string }> {
  const mapping = await ctx.runtime.singleMapping(dir);
  const sync = await openReadOnly(ctx.runtime, mapping);
  return { mapping, editorId: sync.editorId };
}

/** Finds version `label` (`v12`) by paging the history; throws NOT_FOUND with the range that exists. */
export async function findVersion(client: V3Client, editorId: string, label: string): Promise<Version> {
  let newest: string | undefined;
  for (let skip = 0; ;) {
    const page = await client.listVersions(editorId, skip);
    newest ??= page.versions[0]?.versionLabel;
    const found = page.versions.find((v) => v.versionLabel === label);
    if (found !== undefined) return found;
    if (!page.hasMore || page.versions.length === 0) break;
    skip += page.versions.length;
  }
  throw new MpsyncError("NOT_FOUND", `version ${label} not found in design ${editorId}`, {
    hint: newest === undefined ? "the design has no versions" : `versions go up to ${newest}: see mpsync versions --all`,
  });
}

/** `mpsync versions`. */
export async function runVersions(ctx: CommandContext, flags: VersionsFlags): Promise<void> {
  const { editorId, mapping } = await openMapped(ctx, flags.dir);
  const client = await ctx.runtime.client();
  const page = flags.all === true ? { versions: await client.listAllVersions(editorId), hasMore: false } : await client.listVersions(editorId, 0);
  const active = (await client.getActiveArtifact(editorId)).artifactId;
  ctx.out.result("versions", { ok: true, dir: mapping.dir, editorId, versions: page.versions, hasMore: page.hasMore, active }, () =>
    renderVersions(ctx.out, page.versions, active, ctx.runtime.clock.now()),
  );
  if (page.hasMore) ctx.out.info(ctx.out.c.dim("older versions: mpsync versions --all"));
}

function renderVersions(out: Output, versions: Version[], active: string, now: number): void {
  if (versions.length === 0) {
    out.info("no versions");
    return;
  }
  const labelWidth = Math.max(...versions.map((v) => v.versionLabel.length));
  const ages = versions.map((v) => formatAge(toEpochMs(v.timeCreated), now));
  const ageWidth = Math.max(...ages.map((a) => a.length));
  versions.forEach((v, i) => {
    const mark = v.artifactId === active ? out.c.green("*") : " ";
    const label = v.artifactId === active ? out.c.bold(v.versionLabel.padEnd(labelWidth)) : v.versionLabel.padEnd(labelWidth);
    const title = v.title.length > 72 ? `${v.title.slice(0, 71)}…` : v.title;
    out.info(`${mark} ${label}  ${out.c.dim((ages[i] ?? "").padEnd(ageWidth))}  ${title}`);
  });
}
