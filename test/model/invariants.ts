/**
 * The model's invariants. Each returns a list of violations (empty: holds), so a failing run
 * names every broken promise at once and fast-check shrinks towards the first.
 */
import { checkRemoteName } from "../../src/local/path-jail.js";
import { hashContent } from "../../src/core/hash.js";
import { jailRemoteNames } from "../../src/sync/remote-snapshot.js";
import { describeContent } from "../support/memory-ports.js";
import { contentKey, type World } from "./world.js";

/** 1. No lost content: whatever the user saved is on the service, on disk, or in the store. */
export function checkNoLostContent(w: World): string[] {
  const out: string[] = [];
  for (const [rel, owed] of w.owed) {
    const kept = new Set<string>();
    const onDisk = w.tree.files.get(rel);
    if (onDisk !== undefined) kept.add(contentKey(onDisk));
    for (const a of w.service.artifacts.values()) {
      const text = a.files.get(rel);
      if (text !== undefined) kept.add(contentKey(text));
    }
    for (const b of w.store.backups) if (b.rel === rel) kept.add(contentKey(b.content));
    for (const c of w.store.conflicts) {
      if (c.rel !== rel) continue;
      for (const side of [c.sides.local, c.sides.remote, c.sides.base]) if (side !== undefined) kept.add(contentKey(side));
    }
    for (const key of owed) if (!kept.has(key)) out.push(`lost content of ${rel}: ${JSON.stringify(key.slice(0, 60))}`);
  }
  return out;
}

/**
 * 1b. No hidden edit (merge policy): the lines a user wrote (lines no remote version of the
 * file ever held) must show somewhere a person looks: on disk (merged or between conflict
 * markers), in a version on the service, in a reported conflict. An edit that survives only
 * in `.mpsync/backups/` was silently replaced: a backup nobody was told about is not a way
 * back (a failed PATCH followed by a remote change once pulled over the edit).
 */
export function checkNoHiddenEdit(w: World): string[] {
  if (w.policy !== "merge") return [];
  const out: string[] = [];
  for (const [rel, owed] of w.owed) {
    // Lines the service ever held (remote-born, or sent by a PATCH that landed) may be changed
    // by later remote edits: that is no loss. What must stay visible is what never got there.
    const sent = w.service.patches.filter((p) => p.applied).flatMap((p) => p.files.filter((f) => f.fileName === rel).map((f) => f.code));
    const remoteLines = new Set([...(w.remoteIntroduced.get(rel) ?? []), ...sent].flatMap((t) => t.split(/\r?\n/)));
    const visible = new Set<string>();
    const see = (text: unknown): void => {
      if (typeof text === "string") for (const l of text.split(/\r?\n/)) visible.add(l);
    };
    see(w.tree.files.get(rel));
    for (const a of w.service.artifacts.values()) see(a.files.get(rel));
    for (const c of w.store.conflicts) if (c.rel === rel) for (const side of [c.sides.local, c.sides.remote, c.sides.base]) see(side);
    const announced = w.events.some((e) => e.event === "conflict" && e.files?.includes(rel) === true);
    if (announced) continue;
    for (const key of owed) {
      if (!key.startsWith("t:")) continue;
      const mine = key
        .slice(2)
        .split(/\r?\n/)
        .filter((l) => l !== "" && !remoteLines.has(l));
      const hidden = mine.filter((l) => !visible.has(l));
      if (hidden.length > 0) out.push(`hidden edit of ${rel}: ${JSON.stringify(hidden[0])} replaced silently (only in backups, if anywhere)`);
    }
  }
  return out;
}

/** 3. Nothing outside the folder: the engine never asked for a path the jail refuses. */
export function checkJail(w: World): string[] {
  const out = w.tree.jailViolations.map((p) => `engine touched a jailed path ${JSON.stringify(p)}`);
  for (const rel of w.tree.files.keys()) if (!checkRemoteName(rel).ok) out.push(`a jailed path exists locally: ${rel}`);
  return out;
}

/**
 * 4. No echo: a PATCH never carries content the target already holds, nor content that came
 * from the remote (generation, web editor) and that the user never wrote at that path. The
 * exception: once state.json was lost, a path with no base, or one a keep-local conflict
 * resolved, may carry a remote-born local file: without a base the engine cannot tell it from
 * a user's edit (a known limit, not a bug).
 */
export function checkNoEcho(w: World): string[] {
  const out: string[] = [];
  for (const patch of w.service.patches.slice(w.patchesChecked)) {
    // The teammate's PATCHes carry its own user's edits: they are remote changes for this engine.
    if (w.teammatePatches.has(patch)) continue;
    for (const f of patch.files) {
      if (w.tree.ignores(f.fileName)) out.push(`PATCH carried an ignored file ${f.fileName}`);
      if (w.halfTexts.get(f.fileName)?.has(f.code) === true) out.push(`PATCH sent ${f.fileName} half-written (read once, while the editor was still writing)`);
      const before = patch.before.get(f.fileName);
      if (patch.applied && before !== undefined && w.service.served.get(f.fileName)?.has(before) !== true && !w.sentBefore(patch, f.fileName, before)) {
        out.push(`blind overwrite: PATCH replaced remote ${f.fileName} content the engine never read`);
      }
      if (patch.before.get(f.fileName) === f.code) out.push(`redundant PATCH of ${f.fileName}: the artifact already held it`);
      const fromRemote = w.remoteIntroduced.get(f.fileName)?.has(f.code) === true;
      const userWrote = w.userAuthored.get(f.fileName)?.has(contentKey(f.code)) === true;
      const unknowable = w.provenanceLost && (w.basedAtPatch.get(patch)?.has(f.fileName) !== true || w.keptLocal.has(f.fileName));
      const restored = w.lateErased.get(f.fileName)?.has(f.code) === true;
      if (fromRemote && !userWrote && !unknowable && !restored) out.push(`echo: PATCH sent remote content of ${f.fileName} back`);
    }
  }
  w.patchesChecked = w.service.patches.length;
  return out;
}

/** 5. The base moves only after a round trip: each base was on disk (engine-seen) and on the service. */
export function checkBases(w: World): string[] {
  const out: string[] = [];
  for (const [rel, { hash }] of Object.entries(w.store.saved?.files ?? {})) {
    const seenOnDisk = w.engineDisk.get(rel)?.has(hash) === true || w.conflictBases.get(rel)?.has(hash) === true;
    if (!seenOnDisk) out.push(`base of ${rel} was never on disk`);
    if (w.serviceEver.get(rel)?.has(hash) !== true) out.push(`base of ${rel} was never on the service`);
    if (!w.store.bases.has(hash)) out.push(`base text of ${rel} is missing from the store`);
  }
  // Flush before save: a state.json naming a base whose file is not yet durable could, after a
  // power loss, take the older text on disk for a local edit of that base.
  for (const s of [...w.store.unflushedBases, ...(w.mate?.store.unflushedBases ?? [])])
    out.push(`state saved naming the base of ${s} before its write was flushed`);
  // Removals too: a removal the disk could undo would come back as a new local file, and be pushed.
  for (const s of [...w.store.unflushedRemovals, ...(w.mate?.store.unflushedRemovals ?? [])])
    out.push(`state saved recording the removal of ${s} before the removal was flushed`);
  return out;
}

/**
 * 6. No lost line, whoever typed it (lines.ts): this folder's user, the web editor, the
 * teammate. Visible means on the active version, in either folder, or in a conflict copy; a
 * line only in `.mpsync/backups/` is lost unless a conflict event named its file.
 */
export function checkNoLostLine(w: World): string[] {
  const seen = [
    ...w.service.active().files.values(),
    ...w.tree.files.values(),
    ...(w.mate?.tree.files.values() ?? []),
    ...[...w.store.conflicts, ...(w.mate?.store.conflicts ?? [])].flatMap((c) => [c.sides.local, c.sides.remote, c.sides.base]),
  ];
  const events = [...w.events, ...(w.mate?.events ?? [])];
  // A conflict said as needing the user (markers, a displaced edit) names the loss; a clean merge
  // does not. A merged-back edit removed again (other-writers.ts) is said with the restore that
  // brings it back: that removal stands.
  return w.lines.lost(
    seen,
    (rel) =>
      events.some((e) => e.event === "conflict" && e.files?.includes(rel) === true && (e.unresolved === true || e.displaced === true)) ||
      events.some((e) => e.event === "notice" && String(e.message).includes(`removed your edit again`) && String(e.message).includes(`mpsync restore ${rel})`)),
  );
}

/**
 * 7. The content check's sweep (check-scope.ts): no synced path goes unread through
 * CHECK_SWEEP_ROUNDS content checks in a row, so an in-place remote edit of a cold file is
 * found within that many checks.
 */
export function checkSweep(w: World): string[] {
  return w.sweep.violations(w.sweptPaths());
}

/** Invariants that hold after every step. */
export function checkAlways(w: World): string[] {
  return [...checkNoLostContent(w), ...checkNoHiddenEdit(w), ...checkJail(w), ...checkNoEcho(w), ...checkBases(w), ...checkNoLostLine(w), ...checkSweep(w)];
}

/**
 * 2. Once quiet: every path not in conflict (markers, binary), not deleted locally (its
 * remote still at the base), not refused by the service and not a refused local name holds
 * the remote content.
 */
export function checkConverged(w: World): string[] {
  const out: string[] = [];
  const remote = w.service.active().files;
  const state = w.store.saved;
  const refusedNames = new Set(jailRemoteNames([...remote.keys()]).refused.map((r) => r.name));
  const paths = new Set([...remote.keys(), ...w.tree.files.keys()].filter((p) => checkRemoteName(p).ok && !refusedNames.has(p) && !w.tree.ignores(p)));
  for (const rel of paths) {
    const local = w.tree.files.get(rel);
    const remoteText = remote.get(rel);
    const base = state?.files[rel]?.hash;
    if (local === undefined) {
      if (remoteText !== undefined && base !== hashContent(remoteText)) out.push(`${rel} is remote only, and not a local deletion`);
      continue;
    }
    const read = describeContent(local);
    if (read.binary || read.hasMarkers) continue;
    if (state?.refusedContent?.[rel] === read.hash) continue;
    // A new local name the service's name rules refuse is kept local and reported.
    if (state?.refusedLocal?.[rel] !== undefined) continue;
    if (remoteText !== read.text) out.push(`${rel} differs: local ${JSON.stringify(read.text)} remote ${JSON.stringify(remoteText)}`);
  }
  return out;
}
