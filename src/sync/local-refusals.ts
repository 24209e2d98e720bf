/**
 * Local names the service's name rules would refuse (issue 11): never pushed, reported once with
 * what to do, and kept in state (`refusedLocal`) so `status` lists them.
 */
import type { LocalNameRefusal } from "../local/path-jail.js";
import type { PersistedState } from "./ports.js";

/** What to do with one path: skip it, whether `refusedLocal` changed, and the notice to give once. */
export interface LocalNameVerdict {
  skip: boolean;
  changed: boolean;
  notice?: string;
}

/**
 * Judges `path` (a new local file when `isNewLocal`) with `judge` (path-jail.ts localNameJudge,
 * built once per remote listing); updates `state.refusedLocal`.
 */
export function judgeLocalName(state: PersistedState, path: string, isNewLocal: boolean, judge: (name: string) => LocalNameRefusal): LocalNameVerdict {
  const known = state.refusedLocal ?? {};
  const refusal = isNewLocal ? judge(path) : undefined;
  if (refusal === undefined) {
    if (known[path] === undefined) return { skip: false, changed: false };
    const { [path]: _gone, ...rest } = known;
    state.refusedLocal = Object.keys(rest).length === 0 ? undefined : rest;
    return { skip: false, changed: true };
  }
  const reason = `${refusal.reason}: not pushed; ${refusal.fix}`;
  if (known[path] === reason) return { skip: true, changed: false };
  state.refusedLocal = { ...known, [path]: reason };
  return { skip: true, changed: true, notice: `local file ${JSON.stringify(path)} ${reason}` };
}
