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

/** A pull of at least this many files shows a progress bar on a terminal. */
export const PROGRESS_MIN_FILES = 50;

/** Per-file lines shown before a long list is summarised (`-v` shows all; `--json` has all). */
export const LIST_LIMIT = 20;
/** Lines shown of a list over LIST_LIMIT. */
const LIST_HEAD = 10;

/** Prints one design's summary: what moved, conflicts, reports; `elapsedMs` adds a totals line. */
export function renderPlan(out: Output, s: CycleSummary & { dir: string }, dryRun: boolean, elapsedMs?: number): void {
  const c = out.c;
  const verb = (done: string, would: string): string => (dryRun ? would : done);
  const head = c.bold(out.folder(s.dir));
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
    out.success(`${head}: no differences`);
    return;
  }
  if (s.halted === undefined) out.info(`${head}${dryRun ? c.dim(" (dry run)") : ""}`);
  const shown = out.opts.verbose || lines.length <= LIST_LIMIT ? lines : lines.slice(0, LIST_HEAD);
  for (const l of shown) out.info(l);
  if (shown.length < lines.length) out.info(c.dim(`  ... and ${count(lines.length - shown.length)} more (-v lists every file; --json has them all)`));
  const totals = totalsLine(s, dryRun);
  if (totals !== "" && (lines.length > LIST_LIMIT || elapsedMs !== undefined)) {
    const took = elapsedMs === undefined || dryRun ? "" : ` in ${(elapsedMs / 1000).toFixed(1)} s`;
    out.info(`  ${totals}${took}`);
  }
}

/**
 * "pulled 3,000 files, pushed 2 files, 1 conflict resolved" (what a long list adds up to). A
 * conflict merged or settled by onConflict is counted apart from one left with markers: only
 * the second waits for the person (and makes exit code 5).
 */
export function totalsLine(s: CycleSummary, dryRun: boolean): string {
  const parts: string[] = [];
  const add = (n: number, done: string, would: string, noun = "file"): void => {
    if (n > 0) parts.push(`${dryRun ? would : done} ${count(n)} ${noun}${n === 1 ? "" : "s"}`);
  };
  add(s.pulled.length, "pulled", "would pull");
  add(s.removed.length, "removed", "would remove");
  add(s.pushed.length, "pushed", "would push");
  const conflicts = (n: number, what: string): void => {
    if (n > 0) parts.push(`${count(n)} conflict${n === 1 ? "" : "s"}${what}`);
  };
  const left = s.conflicts.filter((p) => s.unresolvedConflicts.includes(p)).length;
  if (dryRun) conflicts(s.conflicts.length, "");
  else {
    conflicts(s.conflicts.length - left, " resolved");
    conflicts(left, " left with markers");
  }
  return parts.join(", ");
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}
