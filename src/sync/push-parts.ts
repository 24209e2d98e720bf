/**
 * The remote half of a run: the pushes a plan gathered go out as one PATCH, or in parts of
 * PUSH_PART_BYTES when larger (a 413 halves a part; a batch refused for a new name is sent
 * again file by file). A part's bases move (run.result.bases) only once its PATCH is answered;
 * a failed part leaves it and the parts after it pending, for the next cycle.
 *
 * The cycle read the remote once, just before its first PATCH. Every PATCH after that one goes
 * out later (after the parts before it, or after a 413 or 400 it answers), so it reads its files
 * again first: one another writer changed meanwhile is not sent (run.result.remoteMoved), and
 * the caller plans it again against the new text. The API has no compare-and-swap: this keeps
 * every PATCH's unguarded window as short as the first one's.
 */
import { hasCode, type ErrorCode } from "../core/errors.js";
import type { ExecutionRun, PendingPush, RefusedPush } from "./execution-run.js";

/**
 * Bytes of file text per PATCH. A push of many files (a first push of a whole folder) goes out
 * in parts of about this size, each confirmed (its bases moved) on its own: one request's
 * memory stays bounded, a failure costs one part, and it is far below the 16 MB the service was
 * seen to accept (docs/service-facts.md#files). A 413 halves a part (pushHalves).
 */
export const PUSH_PART_BYTES = 4 * 1024 * 1024;

/** Sends `run.pushes` (sorted), part by part; stops at the first part that fails (run.result.pushError). */
export async function pushAll(run: ExecutionRun): Promise<void> {
  // Hashed only for a path with refused content (a push of thousands of files hashes nothing here).
  let rest = run.pushes.filter((p) => {
    const refused = run.refused(p.path);
    return refused === undefined || refused !== run.hashOf(p.text);
  });
  while (rest.length > 0) {
    const count = partLength(rest, run.partBytes);
    if (!(await pushPart(run, rest.slice(0, count)))) return;
    rest = rest.slice(count);
  }
}

/** How many of `pushes`, in order, make one part of at most `limit` bytes of text (at least one). */
function partLength(pushes: readonly PendingPush[], limit: number): number {
  let bytes = 0;
  for (const [i, p] of pushes.entries()) {
    bytes += textBytes(p);
    if (i > 0 && bytes > limit) return i;
  }
  return pushes.length;
}

function textBytes(p: PendingPush): number {
  return Buffer.byteLength(p.text);
}

/**
 * One PATCH. False when it failed (result.pushError is set; the files of this part and of the
 * parts after it stay pending and go out with the next cycle).
 */
async function pushPart(run: ExecutionRun, part: PendingPush[]): Promise<boolean> {
  try {
    await send(run, part);
    return true;
  } catch (err) {
    if (refusedWith(err, "TOO_LARGE")) return pushHalves(run, part);
    const newFiles = part.filter((p) => !run.remoteNames.has(p.path));
    if (!refusedWith(err, "BAD_REQUEST") || newFiles.length === 0) {
      run.result.pushError = failureOf(err);
      return false;
    }
    return pushSeparately(run, part, newFiles);
  }
}

/**
 * The service found the body too large (413; its limit is not documented): each half goes
 * out on its own, so a part shrinks until it fits, and the parts after it are cut no larger
 * (`run.partBytes`). A single file it refuses is reported once per content, like a refused new name.
 */
async function pushHalves(run: ExecutionRun, part: PendingPush[]): Promise<boolean> {
  const [only] = part;
  if (part.length === 1 && only !== undefined) {
    refuse(run, only, "too-large");
    return true;
  }
  const middle = Math.ceil(part.length / 2);
  const halves = [part.slice(0, middle), part.slice(middle)];
  run.partBytes = Math.min(run.partBytes, Math.max(...halves.map((h) => h.reduce((n, p) => n + textBytes(p), 0))));
  return (await pushPart(run, halves[0]!)) && pushPart(run, halves[1]!);
}

/**
 * The service refused a batch holding new names (it may not create files). Send the known
 * files together, then each new file alone, so one refused name does not block the rest.
 */
async function pushSeparately(run: ExecutionRun, all: PendingPush[], newFiles: PendingPush[]): Promise<boolean> {
  const known = all.filter((p) => run.remoteNames.has(p.path));
  try {
    if (known.length > 0) await send(run, known);
  } catch (err) {
    run.result.pushError = failureOf(err);
    return false;
  }
  for (const file of newFiles) {
    try {
      await send(run, [file]);
    } catch (err) {
      if (!refusedWith(err, "BAD_REQUEST")) {
        run.result.pushError = failureOf(err);
        return false;
      }
      refuse(run, file, "new-name");
    }
  }
  return true;
}

/** One PATCH of `files` (less those another writer changed since the cycle read them); once answered, their bases move to what was sent. */
async function send(run: ExecutionRun, all: PendingPush[]): Promise<void> {
  const files =
    run.patches === 0
      ? all
      : await unmoved(run, all).catch((err: unknown) => {
          throw new RecheckFailed(err);
        });
  if (files.length === 0) return;
  run.patches += 1;
  await run.writeRemote(files.map((p) => ({ fileName: p.path, code: p.text })));
  for (const p of files) {
    run.result.bases.push({ path: p.path, hash: await run.bases.putBase(p.text) });
    run.result.pushed.push(p.path);
  }
}

/**
 * `files` whose remote side is still what the cycle read; the others go to result.remoteMoved.
 * A file the service held is read again; a new name costs no read (a first push of thousands
 * of files would read them all again): one listing says whether someone created it meanwhile.
 */
async function unmoved(run: ExecutionRun, files: PendingPush[]): Promise<PendingPush[]> {
  const held = files.filter((p) => run.remoteNames.has(p.path)).map((p) => p.path);
  const created = held.length < files.length ? run.listRemote() : undefined;
  const texts = held.length > 0 ? await run.readRemote(held) : new Map<string, string>();
  const listed = await created;
  const kept: PendingPush[] = [];
  for (const p of files) {
    const same = run.remoteNames.has(p.path) ? texts.get(p.path) === run.remoteTexts.get(p.path) : listed !== undefined && !listed.has(p.path);
    if (same) kept.push(p);
    else run.result.remoteMoved.push(p.path);
  }
  return kept;
}

/** A later PATCH's re-read failed: nothing was sent, and its error is the read's, never taken for the PATCH's 413 or 400. */
class RecheckFailed extends Error {
  constructor(readonly reason: unknown) {
    super("the read before a later PATCH failed", { cause: reason });
  }
}

/** True when the PATCH itself was answered with `code` (a 413, a 400). */
function refusedWith(err: unknown, code: ErrorCode): boolean {
  return !(err instanceof RecheckFailed) && hasCode(err, code);
}

/** The error to report for a failed send: the read's when the re-read failed. */
function failureOf(err: unknown): unknown {
  return err instanceof RecheckFailed ? err.reason : err;
}

/** Records a file the service refused: not sent again until its content changes. */
function refuse(run: ExecutionRun, file: PendingPush, reason: RefusedPush["reason"]): void {
  run.result.refusedContent.set(file.path, run.hashOf(file.text));
  run.result.refused.push({ path: file.path, reason });
}
