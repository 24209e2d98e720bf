/** `mpsync doctor`: config, key, service, clock and folder checks, each failure with its fix. */
import type { CommandContext } from "../context.js";
import { runDoctorChecks } from "../doctor-checks.js";
import { EXIT } from "../exit-codes.js";

/** `mpsync doctor`. */
export async function runDoctor(ctx: CommandContext): Promise<number> {
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
}
