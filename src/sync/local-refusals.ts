/**
 * Local names the service's name rules would refuse: never pushed, reported once with
 * what to do, and kept in state (`refusedLocal`) so `status` lists them.
 */
import type { LocalNameRefusal } from "../local/path-jail.js";

/** What to do with one path: skip it, the reason to record (undefined: none), and the notice to give once. */
export interface LocalNameVerdict {
  skip: boolean;
  /** The reason `refusedLocal` should hold for the path (undefined: not refused). */
  reason: string | undefined;
  notice?: string;
}

/**
 * Judges `path` (a new local file when `isNewLocal`) with `judge` (path-jail.ts localNameJudge,
 * built once per remote listing); `known`: the reason recorded for it so far. Pure: the cycle
 * hands the reasons to FolderStatus.noteLocalNames.
 */
export function judgeLocalName(known: string | undefined, path: string, isNewLocal: boolean, judge: (name: string) => LocalNameRefusal): LocalNameVerdict {
  const refusal = isNewLocal ? judge(path) : undefined;
  if (refusal === undefined) return { skip: false, reason: undefined };
  const reason = `${refusal.reason}: not pushed; ${refusal.fix}`;
  return known === reason ? { skip: true, reason } : { skip: true, reason, notice: `local file ${JSON.stringify(path)} ${reason}` };
}
