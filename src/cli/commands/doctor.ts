/** `mpsync doctor`: config, address, key, service, clock and folder checks, each failure with its fix. */
import { runDoctor as runDoctorChecks } from "../../app/doctor.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";

/** `mpsync doctor`: exit 0 when every check passes, 3 for a key missing or refused, else 1. */
export async function runDoctor(ctx: CommandContext): Promise<number> {
  const { checks, keyProblem } = await runDoctorChecks(ctx.runtime, ctx.io.cwd);
  const failed = checks.filter((c) => !c.ok);
  ctx.out.result("doctor", { ok: failed.length === 0, checks }, () => {
    const c = ctx.out.c;
    for (const check of checks) {
      ctx.out.info(`${check.ok ? c.green("✓") : c.red("✗")} ${c.bold(check.name)}: ${check.detail}`);
      if (check.fix !== null) ctx.out.info(`  ${c.yellow("fix:")} ${check.fix}`);
    }
    ctx.out.info(failed.length === 0 ? c.green(`all ${checks.length} checks passed`) : c.red(`${failed.length} of ${checks.length} checks failed`));
  });
  if (failed.length === 0) return EXIT.ok;
  return keyProblem ? EXIT.auth : EXIT.failure;
}
