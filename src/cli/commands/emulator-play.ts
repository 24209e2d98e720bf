/** `mpsync emulator web-edit` and `mpsync emulator generate`: a teammate in the emulator's web editor (src/app/emulator-play.ts). */
import { playGeneration, playWebEdit } from "../../app/emulator-play.js";
import { locateFile } from "../../app/restore-file.js";
import { MpsyncError } from "../../core/errors.js";
import { quoteLine } from "../../core/quote-line.js";
import type { CommandContext } from "../context.js";

/** `mpsync emulator web-edit FILE [LINE]`. */
export async function runWebEdit(ctx: CommandContext, path: string, line: string | undefined, flags: { dir?: string; remove?: boolean }): Promise<void> {
  if (flags.remove === true && line !== undefined) throw new MpsyncError("USAGE", "--remove takes no LINE: it removes the whole file");
  const file = await locateFile(ctx.runtime, ctx.io.cwd, path.replace(/\/+$/, ""), flags.dir);
  const appended = line ?? `// edited in the web editor at ${new Date(ctx.runtime.clock.now()).toISOString().slice(11, 19)}`;
  const done = await playWebEdit(ctx.runtime, file, flags.remove === true ? { remove: true } : { append: appended });
  const what = flags.remove === true ? `removed ${done.name}` : `appended ${quoteLine(appended)} to ${done.name}`;
  ctx.out.result("emulator-play", { ok: true, editorId: done.editorId, path: done.name, action: flags.remove === true ? "removed" : "appended" }, () => {
    ctx.out.success(`web editor of ${done.editorId}: ${what} (the active version; no new version)`);
    ctx.out.info(ctx.out.c.dim(`  a running mpsync watch pulls it at its next content check (remoteCheckSec), or now: mpsync pull ${file.mapping.label}`));
  });
}

/** `mpsync emulator generate PROMPT`. */
export async function runGenerate(ctx: CommandContext, prompt: string, flags: { dir?: string }): Promise<void> {
  if (prompt.trim() === "") throw new MpsyncError("USAGE", "the prompt is empty");
  const mapping = await ctx.runtime.singleMapping(flags.dir);
  const done = await playGeneration(ctx.runtime, mapping, prompt);
  ctx.out.result("emulator-play", { ok: true, editorId: done.editorId, action: "generating" }, () => {
    ctx.out.success(`web editor of ${done.editorId}: generating ${JSON.stringify(prompt)}`);
    ctx.out.info(ctx.out.c.dim(`  a running mpsync watch pulls the new version when it ends (mpsync status says while it generates)`));
  });
}
