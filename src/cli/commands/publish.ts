/** `mpsync publish [DIR...]`: compile the active artifact of each design so the preview shows it. */
import { openStateStore } from "../../state/state-store.js";
import { ApiError, hasCode, MpsyncError } from "../../api/errors.js";
import { describeError } from "../../sync/describe-error.js";
import { errorCode } from "../../core/errors.js";
import type { CommandContext } from "../context.js";
import type { Mapping } from "../../config/mappings.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";
import { openReadOnly } from "../../app/folder.js";
import type { PublishOutcome } from "../../app/json-documents.js";
import { linksSchema } from "./open.js";

/** One design's publish outcome (the `--json` shape). */
export type { PublishOutcome } from "../../app/json-documents.js";

/** `mpsync publish`. */
export async function runPublish(ctx: CommandContext, dirs: string[], flags: { all?: boolean }): Promise<number> {
  const outcomes: PublishOutcome[] = [];
  let worst: unknown;
  const mappings = await ctx.runtime.mappings(dirs);
  if (dirs.length === 0 && mappings.length > 1 && flags.all !== true) {
    // Publishing moves each design's active version: several at once only when asked.
    throw new MpsyncError("USAGE", `${mappings.length} designs are mapped here: name the folders to publish, or pass --all`, {
      hint: `mpsync publish ${mappings.map((m) => m.label).join(" ")}`,
    });
  }
  for (const mapping of mappings) {
    const outcome = await publishOne(ctx, mapping);
    outcomes.push(outcome.result);
    if (outcome.err !== undefined) worst ??= outcome.err;
  }
  const ok = worst === undefined;
  ctx.out.result("publish", { ok, designs: outcomes }, () => renderOutcomes(ctx, outcomes));
  // Auth and credit failures keep their own exit codes; a compile failure is 1.
  return ok ? EXIT.ok : exitCodeFor(worst);
}

async function publishOne(ctx: CommandContext, mapping: Mapping): Promise<{ result: PublishOutcome; err?: unknown }> {
  const result: PublishOutcome = {
    dir: mapping.dir,
    editorId: undefined,
    artifactId: undefined,
    previewUrl: undefined,
    compiledFiles: undefined,
    warning: undefined,
    error: undefined,
  };
  try {
    const sync = await openReadOnly(ctx.runtime, mapping);
    result.editorId = sync.editorId;
    const client = await ctx.runtime.client();
    result.artifactId = (await client.getActiveArtifact(sync.editorId)).artifactId;
    const published = await client.publish(sync.editorId, result.artifactId);
    result.previewUrl = published.previewUrl;
    // Remembered for `mpsync open --preview` (a side file: a running daemon's state is not touched).
    const store = openStateStore(mapping.root);
    // A preview's address does not change: one named by an earlier answer is kept.
    const previewUrl = published.previewUrl ?? (await store.loadSide("links.json", linksSchema))?.previewUrl;
    await store.saveSide("links.json", { previewUrl, publishedAt: ctx.runtime.clock.now() });
    result.compiledFiles = published.compiledFiles?.length;
    result.warning = published.warning;
    return { result };
  } catch (err) {
    const compiler = hasCode(err, "UNPROCESSABLE") && err instanceof ApiError ? err.serverMessage : undefined;
    result.error = { code: errorCode(err), message: describeError(err), ...(compiler === undefined ? {} : { compiler }) };
    return { result, err };
  }
}

function renderOutcomes(ctx: CommandContext, outcomes: PublishOutcome[]): void {
  const c = ctx.out.c;
  for (const o of outcomes) {
    if (o.error === undefined) {
      // Only the service's own list says what it compiled; a warning means it did not check.
      const compiled = o.warning !== undefined ? `; ${o.warning}` : o.compiledFiles === undefined ? "" : `, ${o.compiledFiles} files compiled`;
      ctx.out.success(`${c.bold(ctx.out.folder(o.dir))} published${o.previewUrl === undefined ? "" : ` ${o.previewUrl}`}${compiled}`);
    } else if (o.error.compiler !== undefined) {
      ctx.out.info(`${c.red("✗")} ${c.bold(ctx.out.folder(o.dir))} does not compile:`);
      for (const line of o.error.compiler.split("\n")) ctx.out.info(`  ${line}`);
    } else {
      ctx.out.info(`${c.red("✗")} ${c.bold(ctx.out.folder(o.dir))}: ${o.error.message}`);
    }
  }
}
