/** `mpsync design-systems` and `mpsync resolve-url URL`: look-ups that need no mapped folder. */
import type { Command } from "commander";
import { MpsyncError } from "../../core/errors.js";
import { normalizeDesignUrl } from "../../sync/resolve-design.js";
import { action, type ExitHolder } from "../program.js";
import type { CliIo } from "../context.js";

/** Registers `design-systems` and `resolve-url`. */
export function registerLookups(program: Command, io: CliIo, exit: ExitHolder): void {
  program
    .command("design-systems")
    .description("list the design systems available to your key (for --design-system)")
    .addHelpText("after", '\nExamples:\n  $ mpsync design-systems\n  $ mpsync create --design-system "$(mpsync design-systems --json | jq -r \'.designSystems[0].id\')"')
    .action(
      action(io, exit, async (ctx) => {
        await ctx.runtime.configIfAny();
        const systems = await (await ctx.runtime.client()).listDesignSystems();
        ctx.out.result("design-systems", { ok: true, designSystems: systems }, () => {
          if (systems.length === 0) ctx.out.info("no design systems");
          const width = Math.max(0, ...systems.map((s) => s.id.length));
          for (const s of systems) ctx.out.info(`${s.id.padEnd(width)}  ${s.name}`);
        });
      }),
    );

  program
    .command("resolve-url")
    .description("print the editorId of a design, published or canvas URL")
    .argument("<url>", "e.g. https://www.magicpatterns.com/c/<id>, https://project-x.magicpatterns.app, or a canvas URL")
    .addHelpText("after", "\nExamples:\n  $ mpsync resolve-url https://project-acme.magicpatterns.app\n  $ mpsync resolve-url 'https://www.magicpatterns.com/s/abc?nodeIds=def' --json")
    .action(
      action(io, exit, async (ctx, url: string) => {
        if (url.trim() === "") throw new MpsyncError("USAGE", "the URL is empty");
        await ctx.runtime.configIfAny();
        const editorId = await (await ctx.runtime.client()).resolveUrl(normalizeDesignUrl(url.trim()));
        ctx.out.result("resolve-url", { ok: true, url, editorId }, () => ctx.out.info(editorId));
      }),
    );
}
