/** `mpsync status`: the report's rendering and its exit code (its shape: src/app/collect-status.ts). */
import type { Output } from "../output.js";
import { formatDuration } from "../../core/duration.js";
import { EXIT } from "../exit-codes.js";
import { clockTime } from "../../log/clock-time.js";
import type { DesignStatusReport, NotSynced } from "../../app/collect-status.js";

/** Why "state unknown" shows (a person must not have to guess). */
export const STATE_UNKNOWN_NOTE = "generating or idle is not known yet: no status poll is recorded within the poll limit; mpsync watch keeps it current";

/** Names listed per kind by the human status before "and N more". */
export const STATUS_LIST_LIMIT = 5;

/** Human rendering. */
export function renderStatus(out: Output, reports: DesignStatusReport[]): void {
  const c = out.c;
  for (const r of reports) {
    const stateText =
      r.state === "generating"
        ? c.yellow("generating")
        : r.state === "idle"
          ? c.green("idle")
          : r.state === "halted"
            ? c.red("needs attention")
            : r.state === "error"
              ? c.red("error")
              : r.state === "no-version"
                ? c.yellow("no version yet")
                : c.dim("state unknown");
    // A live daemon polls all the time but saves an unchanged status once a minute: its age
    // would mislead. Without one, the age says how old the last known status is; beside "state
    // unknown" it would date a state the line does not show.
    const age =
      r.daemon !== undefined
        ? c.dim(", watched")
        : r.statusAgeSec === undefined || r.statusAgeSec === 0 || r.state === "unknown"
          ? ""
          : c.dim(`, as of ${formatDuration(r.statusAgeSec * 1000)} ago`);
    const paused = r.paused === undefined ? "" : `  ${c.yellow("paused")}`;
    out.info(`${c.bold(out.folder(r.dir))}  ${r.editorId ?? ""}  ${stateText}${age}${paused}  ${r.activeVersion ?? ""}`.trimEnd());
    if (r.error !== undefined) out.info(`  ${c.red(r.error)}`);
    if (r.serviceError !== undefined) out.info(`  ${c.red(r.serviceError)}; below: the local side only`);
    else if (r.state === "unknown") out.info(`  ${c.dim(`state unknown: ${STATE_UNKNOWN_NOTE}`)}`);
    if (r.note !== undefined) out.info(`  ${c.dim(r.note)}`);
    if (r.halted !== undefined) out.info(`  ${c.red("halted:")} ${r.halted}; run mpsync pull --force once checked`);
    if (r.paused !== undefined) {
      const since = r.paused.at > 0 ? ` since ${clockTime(r.paused.at)}` : "";
      out.info(`  ${c.yellow("paused")}${since}: nothing is synced until mpsync resume`);
    }
    if (r.daemon !== undefined) out.info(`  ${c.dim(`daemon: pid ${r.daemon.pid}, up ${formatDuration(r.daemon.uptimeSec * 1000)}, ${r.daemon.command}`)}`);
    if (r.staleLock !== undefined)
      out.info(`  ${c.dim(`no daemon running: pid ${r.staleLock.pid} (${r.staleLock.command}) is gone; its lock is taken over by the next run`)}`);
    const list = (label: string, items: string[]): void => {
      if (items.length === 0) return;
      // A long list names the first few (--json keeps every one).
      const shown =
        items.length > STATUS_LIST_LIMIT
          ? [...items.slice(0, STATUS_LIST_LIMIT), `and ${(items.length - STATUS_LIST_LIMIT).toLocaleString("en-US")} more`]
          : items;
      out.info(`  ${label} (${items.length.toLocaleString("en-US")}): ${shown.join(", ")}`);
    };
    list(c.green("local changes"), r.localChanges);
    list(c.blue("remote changes"), r.remoteChanges);
    list(c.yellow("conflicts"), r.conflicts);
    list(c.yellow("unresolved markers"), r.unresolvedConflicts);
    list(c.yellow("deleted locally"), r.deletedLocally);
    if (r.unresolvedConflicts.length > 0) out.info(`  ${c.dim("resolve: edit the markers and save, or mpsync resolve PATH --ours|--theirs")}`);
    if (r.deletedLocally.length > 0)
      out.info(`  ${c.dim("deleted locally: the service cannot delete; bring a file back with mpsync restore PATH, or remove it in the web editor")}`);
    const [blocked, byDesign] = splitNotSynced(r);
    if (blocked.length > 0) {
      out.info(`  ${c.yellow(`not synced (${blocked.length})`)}:`);
      for (const n of blocked) out.info(`    ${n.path}: ${n.reason}`);
    }
    list(
      c.dim(BY_DESIGN_LABEL),
      byDesign.map((n) => n.path),
    );
    if (r.lastError !== undefined) out.info(`  ${c.dim(`last error, ${formatDuration(r.lastError.ageSec * 1000)} ago: ${r.lastError.message}`)}`);
    if (isInSync(r)) out.info(`  ${c.dim("in sync")}`);
  }
}

/** The one line naming what is left out by design (its reasons: `--json`). */
export const BY_DESIGN_LABEL = "left out by design (links, special and binary files never sync)";

/** Files that should sync and cannot, then those never synced by design. */
function splitNotSynced(r: DesignStatusReport): [NotSynced[], NotSynced[]] {
  return [r.notSynced.filter((n) => n.needsAttention), r.notSynced.filter((n) => !n.needsAttention)];
}

/**
 * "in sync" only when nothing is pending, refused, deleted, halted, paused, conflicted or
 * failing. What is left out by design (a symbolic link kept on purpose) does not count.
 */
export function isInSync(r: DesignStatusReport): boolean {
  const lists = [r.localChanges, r.remoteChanges, r.conflicts, r.unresolvedConflicts, r.deletedLocally, splitNotSynced(r)[0]];
  return (
    lists.every((l) => l.length === 0) &&
    r.error === undefined &&
    r.serviceError === undefined &&
    r.halted === undefined &&
    r.paused === undefined &&
    r.state !== "no-version" &&
    r.lastError === undefined
  );
}

/** Why a design needs attention (a person must act): empty when it does not. */
export function attentionReasons(r: DesignStatusReport): string[] {
  const reasons: string[] = [];
  if (r.halted !== undefined) reasons.push("halted");
  if (r.error !== undefined) reasons.push("could not be read");
  if (r.serviceError !== undefined) reasons.push("service unreachable");
  if (r.deletedLocally.length > 0) reasons.push("deleted locally");
  if (splitNotSynced(r)[0].length > 0) reasons.push("files not synced");
  if (r.lastError !== undefined) reasons.push("the daemon's last cycle failed");
  return reasons;
}

/** Exit code of `status`: 3 a refused key, 5 unresolved conflict markers, 1 a design needs attention, else 0. */
export function statusExitCode(reports: DesignStatusReport[]): number {
  if (reports.some((r) => ["UNAUTHORIZED", "FORBIDDEN", "NO_API_KEY"].includes(r.errorCode ?? ""))) return EXIT.auth;
  if (reports.some((r) => r.unresolvedConflicts.length > 0)) return EXIT.conflicts;
  return reports.some((r) => attentionReasons(r).length > 0) ? EXIT.failure : EXIT.ok;
}
