/**
 * The loop's cycle decisions (pure, part of worker-loop.ts's `step`): which cycle runs (none,
 * a push pass, a content check, a full sync) and with what inputs, which remote read goes out
 * ahead of its cycle, and what a `mpsync sync` asked of the worker comes to.
 */
import type { CycleEffect, Effect, LoopEvent, LoopState, NamedVersion, Step, SyncRequest } from "./loop-state.js";

/** What the worker looked at when a cycle came due. */
export interface CycleProbe {
  /** A git operation holds the repository. */
  gitBusy: boolean;
  /** The folder is halted (a circuit breaker tripped): only a full sync can clear it. */
  halted: boolean;
  /** The version the folder synced last (undefined: none yet). */
  artifactId?: string | undefined;
}

/** A full sync a `mpsync sync` asked for. */
interface Asked {
  request: SyncRequest;
  force: boolean;
}

const DROP: Effect = { do: "drop-read-ahead" };

/** The cycle due now, if any; `asked` when a `mpsync sync` asked for it. */
export function decideCycle(s: LoopState, probe: CycleProbe, asked?: Asked): Step {
  if (s.stopped || s.generating || s.paused) return { state: s, effects: [] };
  if (s.waitingForGit || probe.gitBusy) {
    // Neither push (half a checkout) nor write files into a tree git is rewriting. The wait
    // happens off the chain, so status polls go on meanwhile; once waiting, only the waiter
    // resumes, so the operation's changes go out as one batch, logged once.
    if (s.waitingForGit) return { state: s, effects: [] };
    return { state: { ...s, waitingForGit: true }, effects: [{ do: "wait-git" }] };
  }
  // A full sync covers every path; it takes the named version and the read sent ahead, or
  // they are stale. A push pass leaves the read sent ahead to its end: one that sent nothing
  // (an echo of the tool's own writes) moved no version (afterPush).
  const ran: LoopState = { ...s, pending: new Set(), named: undefined };
  if (s.needsFullSync || probe.halted) {
    // A content check reads a slice of the files; with local paths pending, the full sync does it all.
    const check = s.checkOnly && !probe.halted && s.pending.size === 0;
    const cycle = fullSyncEffect(s, probe.artifactId, check, asked);
    const taken = cycle.do === "full-sync" && cycle.check === undefined && cycle.readAhead;
    return { state: { ...ran, readAhead: undefined }, effects: s.readAhead === undefined || taken ? [cycle] : [DROP, cycle] };
  }
  if (s.pending.size === 0) return { state: s, effects: [] };
  return { state: ran, effects: [{ do: "push", paths: s.pending }] };
}

/**
 * A push pass ended (`sent`: it made requests, or failed part way): a read sent ahead may be of
 * a version the push replaced, so it is dropped; a push that sent nothing leaves it.
 */
export function afterPush(out: Step, sent: boolean): Step {
  return sent ? endReadAhead(out) : out;
}

/**
 * The full sync's inputs: the start-up read if it is out; else a version new to the folder
 * that a status answer named (its list spares the active-artifact call), with the read sent
 * as that answer arrived. A handed-over `sync` or `pull --force` reads every file.
 */
function fullSyncEffect(s: LoopState, artifactId: string | undefined, check: boolean, asked: Asked | undefined): CycleEffect {
  const startUp = s.readAhead?.of === "start-up";
  const named = s.named;
  const active: NamedVersion | undefined = !startUp && named !== undefined && named.artifactId !== artifactId ? named : undefined;
  const force = asked?.force === true;
  if (check && !startUp && active === undefined && !force) {
    // The status answer that made the check due lists the version's files: no active-artifact call.
    return named !== undefined && named.artifactId === artifactId ? { do: "full-sync", check: true, listed: named } : { do: "full-sync", check: true };
  }
  const early = active !== undefined && s.readAhead?.of === "version" && s.readAhead.artifactId === active.artifactId;
  return {
    do: "full-sync",
    readAhead: startUp || early,
    force,
    ...(active === undefined ? {} : { active }),
    ...(asked === undefined ? {} : { request: asked.request }),
  };
}

/** `mpsync sync`: a full sync now, or the reason none runs, answered under the request's id. */
export function onSyncNow(s: LoopState, e: Extract<LoopEvent, { type: "sync-now" }>): Step {
  const answer = (code: string, message: string): Effect => ({ do: "answer-sync", request: e.request, answer: { ok: false, code, message } });
  if (s.stopped) return { state: s, effects: [answer("STOPPED", "its sync has stopped")] };
  if (s.paused) return { state: s, effects: [answer("PAUSED", "paused: run mpsync resume first")] };
  const due: LoopState = { ...s, needsFullSync: true, checkOnly: false };
  const out = decideCycle(due, e, { request: { id: e.request, wasHalted: e.halted }, force: e.force });
  if (out.effects.some((effect) => effect.do === "full-sync")) return out;
  // Held back: the full sync stays due and runs once the design is idle or git is done.
  const skipped = s.generating
    ? answer("GENERATING", "the design is generating; it syncs when idle")
    : answer("GIT_BUSY", "a git operation holds the repository; it syncs when git is done");
  return { state: out.state, effects: [...out.effects, skipped] };
}

/**
 * A status answer just arrived: the read of the version it names goes out now when that
 * version is new to the folder, so the lock check, the poll ledger and the status step run
 * while it is in flight, and the full sync that answer starts takes it. Only with no task
 * queued or running on the chain: a cycle before the full sync could change what it should read.
 */
export function onStatusArrived(s: LoopState, e: Extract<LoopEvent, { type: "status-arrived" }>): Step {
  if (!e.chainIdle || s.stopped || s.paused || s.waitingForGit) return { state: s, effects: [] };
  const dropped: Effect[] = s.readAhead === undefined ? [] : [DROP];
  const id = e.status.activeArtifactId;
  if (e.status.isGenerating || id === null || id === e.artifactId || e.gitBusy) return { state: { ...s, readAhead: undefined }, effects: dropped };
  return {
    state: { ...s, readAhead: { of: "version", artifactId: id } },
    effects: [...dropped, { do: "read-ahead", version: { artifactId: id, files: e.status.availableFiles } }],
  };
}

/** The daemon opened the design: the start-up cycle's remote read goes out unless that cycle will wait. */
export function onOpened(s: LoopState, e: Extract<LoopEvent, { type: "opened" }>): Step {
  // The read arrives while the watcher walks the folder; the local scan still begins only once
  // the watcher is ready (an edit made during the cycle must be seen).
  if (s.stopped || s.paused || e.generating || e.gitBusy) return { state: s, effects: [] };
  return { state: { ...s, readAhead: { of: "start-up" } }, effects: [{ do: "read-ahead" }] };
}

/** A read sent ahead is good only for the task that sent it: forgotten when that task ends. */
export function endReadAhead(out: Step): Step {
  if (out.state.readAhead === undefined) return out;
  return { state: { ...out.state, readAhead: undefined }, effects: [...out.effects, DROP] };
}
