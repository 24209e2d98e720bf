/** `mpsync design-systems` and `mpsync resolve-url URL`: look-ups that need no mapped folder. */
import { MpsyncError } from "../../core/errors.js";
import { normalizeDesignUrl } from "../../sync/resolve-design.js";
import type { CommandContext } from "../context.js";

/** `mpsync design-systems`. */
export async function runDesignSystems(ctx: CommandContext): Promise<void> {
  await ctx.runtime.configIfAny();
  const systems = await (await ctx.runtime.client()).listDesignSystems();
  ctx.out.result("design-systems", { ok: true, designSystems: systems }, () => {
    if (systems.length === 0) ctx.out.info("no design systems");
    const width = Math.max(0, ...systems.map((s) => s.id.length));
    for (const s of systems) ctx.out.info(`${s.id.padEnd(width)}  ${s.name}`);
  });
}

/** `mpsync resolve-url`. */
export async function runResolveUrl(ctx: CommandContext, url: string): Promise<void> {
  if (url.trim() === "") throw new MpsyncError("USAGE", "the URL is empty");
  await ctx.runtime.configIfAny();
  const editorId = await (await ctx.runtime.client()).resolveUrl(normalizeDesignUrl(url.trim()));
  ctx.out.result("resolve-url", { ok: true, url, editorId }, () => ctx.out.info(editorId));
}
