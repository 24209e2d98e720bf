/** `mpsync doctor`: config, key, service, clock and folder checks, each failure with its fix. */
import type { Command } from "commander";
import { action, type ExitHolder } from "../program.js";
import type { CliIo } from "../context.js";
import { runDoctorChecks } from "../doctor-checks.js";
import { EXIT } from "../exit-codes.js";

/** Registers `doctor`. */
export function registerDoctor(program: Command, io: CliIo, exit: ExitHolder): void {
  program
    .command("doctor")
    .description("check the config, the API key (GET /v3/health), the service, the clock and every mapped folder")
    .addHelpText("after", "\nExits 0 when every check passes, 1 otherwise.\n\nExamples:\n  $ mpsync doctor\n  $ mpsync doctor --json | jq '.checks[] | select(.ok | not)'")
    .action(
      action(io, exit, async (ctx) => {
        const checks = await runDoctorChecks(ctx);
        const failed = checks.filter((c) => !c.ok);
        ctx.out.result("doctor", { ok: failed.length === 0, checks }, () => {
          const c = ctx.out.c;
          for (const check of checks) {
            ctx.out.info(`${check.ok ? c.green("✓") : c.red("✗")} ${c.bold(check.name)}: ${check.detail}`);
            if (check.fix !== null) ctx.out.info(`  ${c.yellow("fix:")} ${check.fix}`);
          }
          ctx.out.info(failed.length === 0 ? c.green(`all ${checks.length} checks passed`) : c.red(`${failed.length} of ${checks.length} checks failed`));
        });
        return failed.length === 0 ? EXIT.ok : EXIT.failure;
      }),
    );
}
