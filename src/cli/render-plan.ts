/** Human rendering of a pull/push summary. */
import type { CycleSummary } from "../sync/cycle-summary.js";
import type { Output } from "./output.js";

const REASONS: Record<string, string> = {
  "deleted-locally": "deleted locally (the service cannot delete files; it stays remote)",
  "binary-not-pushed": "binary or not UTF-8: not pushed",
  "unresolved-markers": "has conflict markers: resolve them and save to push",
  "remote-name-refused": "remote name refused",
  "waiting-to-push": "changed locally: waiting to be pushed (mpsync push, or watch, sends it)",
};

/** Prints one design's summary: what moved, conflicts, reports. */
export function renderPlan(out: Output, s: CycleSummary & { dir: string }, dryRun: boolean): void {
  const c = out.c;
  const verb = (done: string, would: string): string => (dryRun ? would : done);
  const head = c.bold(s.dir);
  if (s.halted !== undefined) {
    out.info(`${head}: ${c.red("needs attention")}: ${s.halted}`);
    out.info(`  run ${c.cyan("mpsync pull --force")} once you have checked, or fix the cause`);
  }
  const lines: string[] = [];
  for (const p of s.pulled) lines.push(`  ${c.blue("↓")} ${p} ${c.dim(verb("pulled", "would pull"))}`);
  for (const p of s.removed) lines.push(`  ${c.blue("-")} ${p} ${c.dim(verb("removed remotely (backed up)", "would remove (removed remotely)"))}`);
  for (const p of s.pushed) lines.push(`  ${c.green("↑")} ${p} ${c.dim(verb("pushed", "would push"))}`);
  for (const p of s.conflicts) {
    const unresolved = s.unresolvedConflicts.includes(p);
    lines.push(`  ${c.yellow("⚠")} ${p} ${c.dim(dryRun ? "would conflict" : unresolved ? "conflict: markers written" : "conflict resolved")}`);
  }
  for (const r of s.reports) lines.push(`  ${c.dim("·")} ${r.path} ${c.dim(REASONS[r.reason] ?? r.reason)}`);
  for (const r of s.refusedNames) lines.push(`  ${c.red("✗")} ${JSON.stringify(r.name)} ${c.dim(`refused: ${r.reason}`)}`);
  if (lines.length === 0 && s.halted === undefined) {
    out.success(`${head}: up to date`);
    return;
  }
  if (s.halted === undefined) out.info(`${head}${dryRun ? c.dim(" (dry run)") : ""}`);
  for (const l of lines) out.info(l);
}
