/**
 * Commands of the model as plain data (so fast-check prints and shrinks them readably) and
 * how each one acts on the world: user edits, remote changes, faults and engine steps.
 */
import { Teammate } from "./teammate.js";
import fc from "fast-check";
import { FAULT_KINDS, type FaultKind, type FaultTarget } from "./fake-service.js";
import { addTo, HOSTILE_NAMES, PATHS, type World } from "./world.js";
import { checkConverged, checkSweep } from "./invariants.js";
import { CHECK_SWEEP_ROUNDS, RECENT_MS } from "../../src/sync/check-scope.js";
import { RACE_WINDOW_MS } from "../../src/sync/other-writers.js";
import { hashContent } from "../../src/core/hash.js";

/** One edit a generation makes to the active artifact's files. */
export interface GenEdit {
  path: number;
  op: "edit" | "add" | "remove";
  line: number;
}

/** One model command. Indices pick from PATHS (mod its length). */
export type Command =
  | { k: "edit"; path: number; line: number }
  | { k: "create"; path: number }
  | { k: "delete"; path: number }
  | { k: "rename"; from: number; to: number }
  | { k: "burst"; path: number; saves: number }
  | { k: "binary"; path: number }
  | { k: "truncate"; path: number }
  | { k: "crlf"; path: number }
  | { k: "removeFolder" }
  | { k: "refuseNew"; path: number }
  | { k: "bodyLimit"; files: number | undefined }
  | { k: "raceNextWrite"; path: number }
  | { k: "halfSave"; path: number; line: number }
  | { k: "slowWrite"; path: number; line: number; chunked: boolean; web: boolean }
  | { k: "generate"; edits: GenEdit[]; hostile: number | undefined }
  | { k: "webEdit"; path: number; line: number }
  | { k: "switchVersion"; back: number }
  | { k: "fault"; kind: FaultKind; target: FaultTarget }
  | { k: "push" }
  | { k: "pushCommand" }
  | { k: "failedPush"; kind: FaultKind }
  | { k: "mateEdit"; path: number; line: number }
  | { k: "retriedPush" }
  | { k: "sameMoment"; path: number; line: number; mateLine: number }
  | { k: "resendRace"; path: number; other: number; line: number; webLine: number }
  | { k: "staleVersion"; path: number; genPath: number; line: number }
  | { k: "mateSync" }
  | { k: "full" }
  | { k: "check" }
  | { k: "clockJump" }
  | { k: "wallStep"; ms: number }
  | { k: "mateRemoves"; path: number; line: number }
  | { k: "latePush"; path: number; line: number; webLine: number }
  | { k: "chooseVersion"; back: number }
  | { k: "checks"; count: number; webEdit: { path: number; line: number; at: number } | undefined }
  | { k: "crash"; loseState: boolean }
  | { k: "crashMid"; after: number; full: boolean }
  | { k: "quiet" };

const path = fc.nat({ max: PATHS.length - 1 });
const line = fc.nat({ max: 3 });

/** Arbitrary command, weighted so engine steps interleave with plenty of changes. */
export const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant("edit" as const), path, line }), weight: 6 },
  { arbitrary: fc.record({ k: fc.constant("create" as const), path }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant("delete" as const), path }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant("rename" as const), from: path, to: path }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant("burst" as const), path, saves: fc.integer({ min: 2, max: 4 }) }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant("binary" as const), path }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant("raceNextWrite" as const), path }), weight: 2 },
  // A save seen half-written: the engine's next read of it finds the half, then the whole.
  { arbitrary: fc.record({ k: fc.constant("halfSave" as const), path, line }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant("truncate" as const), path }), weight: 1 },
  // A generator or a chunked save: truncates (or writes a first part), a push pass (with a web
  // edit of the file, a conflict) replaces the file, then the writer writes the rest.
  { arbitrary: fc.record({ k: fc.constant("slowWrite" as const), path, line, chunked: fc.boolean(), web: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant("crlf" as const), path }), weight: 1 },
  { arbitrary: fc.constant({ k: "removeFolder" as const }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant("refuseNew" as const), path }), weight: 1 },
  // The service's body limit (413): 0 refuses every file alone, 1 or 2 makes pushes go in halves.
  { arbitrary: fc.record({ k: fc.constant("bodyLimit" as const), files: fc.option(fc.nat({ max: 2 }), { nil: undefined }) }), weight: 1 },
  {
    arbitrary: fc.record({
      k: fc.constant("generate" as const),
      edits: fc.array(fc.record({ path, op: fc.constantFrom("edit" as const, "edit" as const, "add" as const, "remove" as const), line }), {
        minLength: 1,
        maxLength: 3,
      }),
      hostile: fc.option(fc.nat({ max: HOSTILE_NAMES.length - 1 }), { nil: undefined, freq: 4 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ k: fc.constant("webEdit" as const), path, line }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant("switchVersion" as const), back: fc.integer({ min: 1, max: 3 }) }), weight: 1 },
  {
    arbitrary: fc.record({
      k: fc.constant("fault" as const),
      kind: fc.constantFrom(...FAULT_KINDS),
      target: fc.constantFrom<FaultTarget>("getActiveArtifact", "readFiles", "writeFiles", "writeFiles", "listVersions", "any"),
    }),
    weight: 3,
  },
  { arbitrary: fc.constant({ k: "push" as const }), weight: 6 },
  // `mpsync push`: a scan finds the changes and is the push's first read of them.
  { arbitrary: fc.constant({ k: "pushCommand" as const }), weight: 2 },
  // A teammate: a second folder and engine on the same design (its pushes move no version).
  { arbitrary: fc.record({ k: fc.constant("mateEdit" as const), path, line }), weight: 2 },
  { arbitrary: fc.constant({ k: "mateSync" as const }), weight: 2 },
  // Other writers: a PATCH repeated after a web save, a teammate's PATCH between our
  // check and our PATCH, a version built before our push.
  { arbitrary: fc.constant({ k: "retriedPush" as const }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant("sameMoment" as const), path, line, mateLine: line }), weight: 1 },
  // A web edit between a 413 and the halves this client sends again.
  { arbitrary: fc.record({ k: fc.constant("resendRace" as const), path, other: path, line, webLine: line }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant("staleVersion" as const), path, genPath: path, line }), weight: 1 },
  // A push whose PATCH is refused, times out, is dropped after landing or answered garbage:
  // the move that once found a failed PATCH, then a remote change, pulled over the edit.
  {
    arbitrary: fc.record({
      k: fc.constant("failedPush" as const),
      kind: fc.constantFrom<FaultKind>("server-error", "timeout", "bad-request", "too-large", "dropped-after-write", "schema-invalid"),
    }),
    weight: 2,
  },
  { arbitrary: fc.constant({ k: "full" as const }), weight: 4 },
  // The daemon's content check: recent files and a slice of the rest (check-scope.ts).
  { arbitrary: fc.constant({ k: "check" as const }), weight: 2 },
  // An hour passes with nobody touching anything: every file is cold, left to the sweep.
  { arbitrary: fc.constant({ k: "clockJump" as const }), weight: 1 },
  // Other writers decided by order, never by a clock (sync/other-writers.ts).
  ...writerMoves(path),
  // A daemon left idle: a run of content checks, a web edit (of a cold file, after a jump) among them.
  {
    arbitrary: fc.record({
      k: fc.constant("checks" as const),
      count: fc.integer({ min: 1, max: CHECK_SWEEP_ROUNDS + 2 }),
      webEdit: fc.option(fc.record({ path, line, at: fc.nat({ max: CHECK_SWEEP_ROUNDS }) }), { nil: undefined }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ k: fc.constant("crash" as const), loseState: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant("crashMid" as const), after: fc.integer({ min: 1, max: 4 }), full: fc.boolean() }), weight: 2 },
  { arbitrary: fc.constant({ k: "quiet" as const }), weight: 1 },
);

/**
 * Requests that fail, drop or lose their answer, interleaved with remote versions and
 * in-place edits of the same few files: the histories where a failed request could be taken
 * for one that landed. Fewer kinds of move, so they meet often.
 */
export const failureCommandArb: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant("edit" as const), path: fc.nat({ max: 2 }), line }), weight: 4 },
  {
    arbitrary: fc.record({
      k: fc.constant("failedPush" as const),
      kind: fc.constantFrom<FaultKind>("server-error", "timeout", "bad-request", "too-large", "dropped-after-write", "schema-invalid"),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      k: fc.constant("fault" as const),
      kind: fc.constantFrom<FaultKind>("server-error", "timeout", "dropped-after-write", "malformed"),
      target: fc.constantFrom<FaultTarget>("getActiveArtifact", "readFiles", "writeFiles", "any"),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ k: fc.constant("webEdit" as const), path: fc.nat({ max: 2 }), line }), weight: 3 },
  {
    arbitrary: fc.record({
      k: fc.constant("generate" as const),
      edits: fc.array(fc.record({ path: fc.nat({ max: 2 }), op: fc.constant("edit" as const), line }), { minLength: 1, maxLength: 2 }),
      hostile: fc.constant(undefined),
    }),
    weight: 2,
  },
  { arbitrary: fc.constant({ k: "push" as const }), weight: 2 },
  { arbitrary: fc.constant({ k: "full" as const }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant("crashMid" as const), after: fc.integer({ min: 1, max: 4 }), full: fc.boolean() }), weight: 1 },
  { arbitrary: fc.constant({ k: "retriedPush" as const }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant("sameMoment" as const), path: fc.nat({ max: 2 }), line, mateLine: line }), weight: 2 },
  { arbitrary: fc.record({ k: fc.constant("resendRace" as const), path: fc.nat({ max: 2 }), other: fc.nat({ max: 2 }), line, webLine: line }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant("staleVersion" as const), path: fc.nat({ max: 3 }), genPath: fc.nat({ max: 2 }), line }), weight: 1 },
  { arbitrary: fc.constant({ k: "mateSync" as const }), weight: 1 },
  ...writerMoves(fc.nat({ max: 2 })),
);

const pick = (i: number): string => PATHS[i % PATHS.length] ?? "App.tsx";

/** The moves of other writers decided by order: wall-clock steps, a teammate's decision, our late PATCH, a version the user chose. */
function writerMoves(path: fc.Arbitrary<number>): Array<{ arbitrary: fc.Arbitrary<Command>; weight: number }> {
  return [
    { arbitrary: fc.record({ k: fc.constant("wallStep" as const), ms: fc.constantFrom(86_400_000, 40_000, -7_200_000) }), weight: 1 },
    { arbitrary: fc.record({ k: fc.constant("mateRemoves" as const), path, line }), weight: 1 },
    { arbitrary: fc.record({ k: fc.constant("latePush" as const), path, line, webLine: line }), weight: 1 },
    { arbitrary: fc.record({ k: fc.constant("chooseVersion" as const), back: fc.integer({ min: 1, max: 2 }) }), weight: 1 },
  ];
}

/** Applies one command; returns violations found by step-specific checks (quiet). */
export async function applyCommand(w: World, c: Command): Promise<string[]> {
  switch (c.k) {
    case "edit":
    case "burst": {
      const rel = pick(c.path);
      const saves = c.k === "burst" ? c.saves : 1;
      for (let i = 0; i < saves; i += 1) {
        const current = w.tree.files.get(rel);
        w.userWrite(rel, typeof current === "string" ? w.editLine(current, c.k === "edit" ? c.line : i) : w.freshText("u"));
      }
      return [];
    }
    case "create":
      w.userWrite(pick(c.path), w.freshText("new"));
      return [];
    case "delete":
      w.userDelete(pick(c.path));
      return [];
    case "rename": {
      const from = pick(c.from);
      const to = pick(c.to);
      const content = w.tree.files.get(from);
      if (content === undefined || from === to) return [];
      w.userDelete(from);
      w.userWrite(to, content);
      return [];
    }
    case "binary":
      w.userWrite(pick(c.path), new Uint8Array([0, 1, 2, ...Buffer.from(w.token("bin"))]));
      return [];
    case "truncate":
      if (w.tree.files.has(pick(c.path))) w.userWrite(pick(c.path), "");
      return [];
    case "crlf": {
      const current = w.tree.files.get(pick(c.path));
      if (typeof current === "string") w.userWrite(pick(c.path), w.editLine(current, 0).replace(/\n/g, "\r\n"));
      return [];
    }
    case "removeFolder":
      w.userRemoveFolder();
      return [];
    case "refuseNew":
      w.service.refuseNew.add(pick(c.path));
      return [];
    case "bodyLimit":
      w.service.maxPatchFiles = c.files;
      return [];
    case "raceNextWrite":
      w.races.add(pick(c.path));
      return [];
    case "halfSave": {
      const rel = pick(c.path);
      const current = w.tree.files.get(rel);
      const whole = typeof current === "string" ? w.editLine(current, c.line, "h") : w.freshText("half");
      const half = whole.slice(0, Math.ceil(whole.length / 2));
      w.userWrite(rel, half);
      w.halfSaves.set(rel, whole);
      addTo(w.halfTexts, rel, half);
      return [];
    }
    case "slowWrite": {
      const rel = pick(c.path);
      const current = w.tree.files.get(rel);
      if (typeof current !== "string") return [];
      const whole = w.editLine(current, c.line);
      const finish = w.slowWriter(rel, c.chunked ? whole.slice(0, Math.ceil(whole.length / 2)) : "");
      if (c.web) w.webEdit(rel, c.line + 1);
      await applyEngineCommand(w, { k: "push" });
      return finish(whole);
    }
    case "generate":
      generate(w, c.edits, c.hostile);
      return [];
    case "webEdit":
      w.webEdit(pick(c.path), c.line);
      return [];
    case "switchVersion": {
      const ids = [...w.service.artifacts.keys()];
      const index = ids.indexOf(w.service.activeId) - c.back;
      const id = ids[Math.max(0, index)];
      const before = w.service.active().files;
      if (id !== undefined) w.service.activate(id);
      w.lines.replacedVersion(before, w.service.active().files);
      return [];
    }
    case "retriedPush":
      w.service.faults.push({ kind: "retry-after-edit", target: "writeFiles" });
      return applyEngineCommand(w, { k: "push" });
    case "sameMoment": {
      // Two people save the same file at the same moment (no compare-and-swap): the teammate's PATCH
      // lands between this client's pre-push read and its PATCH.
      const rel = pick(c.path);
      const mate = await teammate(w);
      const current = w.tree.files.get(rel);
      w.userWrite(rel, typeof current === "string" ? w.editLine(current, c.line) : w.freshText("new"));
      mate.edit(rel, c.mateLine);
      // Only the teammate acts in that window: a web save there is lost for good (the API has
      // no compare-and-swap; README's known limits), so queued faults wait for our PATCH.
      w.service.beforePatch = async () => {
        const queued = w.service.faults.splice(0);
        await mate.push();
        w.service.faults.push(...queued);
      };
      await applyEngineCommand(w, { k: "push" });
      w.service.beforePatch = undefined;
      return [];
    }
    case "resendRace": {
      // Two files go out together; the service finds the body too large (413) and the client
      // sends them again in halves. A web edit of one of them lands after the 413, before the
      // halves: a re-send made on the strength of the first pre-push read overwrites it unseen.
      for (const rel of new Set([pick(c.path), pick(c.other)])) {
        const current = w.tree.files.get(rel);
        w.userWrite(rel, typeof current === "string" ? w.editLine(current, c.line) : w.freshText("new"));
      }
      const limit = w.service.maxPatchFiles;
      w.service.maxPatchFiles = 1;
      // The web edit lands as the first PATCH (the one refused) is answered.
      w.service.afterPatch = () => w.webEdit(pick(c.path), c.webLine);
      await applyEngineCommand(w, { k: "push" });
      w.service.afterPatch = undefined;
      w.service.maxPatchFiles = limit;
      return [];
    }
    case "staleVersion": {
      // A version built before this push (a generation that started earlier, a version picked
      // in the editor) becomes active between the push's check and its PATCH.
      const rel = pick(c.path);
      const current = w.tree.files.get(rel);
      w.userWrite(rel, typeof current === "string" ? w.editLine(current, c.line) : w.freshText("new"));
      w.service.beforePatch = () => {
        generate(w, [{ path: c.genPath, op: "edit", line: c.line }], undefined);
        return Promise.resolve();
      };
      await applyEngineCommand(w, { k: "push" });
      w.service.beforePatch = undefined;
      return [];
    }
    case "fault":
      w.service.faults.push({ kind: c.kind, target: c.target });
      return [];
    case "mateEdit":
      (await teammate(w)).edit(pick(c.path), c.line);
      return [];
    case "mateSync": {
      const mate = await teammate(w);
      await mate.push();
      await mate.run((s) => s.fullSync());
      return [];
    }
    case "failedPush":
      w.service.faults.push({ kind: c.kind, target: "writeFiles" });
      return applyEngineCommand(w, { k: "push" });
    case "wallStep":
      w.stepWall(c.ms);
      return [];
    case "mateRemoves":
      return mateRemoves(w, pick(c.path), c.line);
    case "latePush":
      return latePush(w, pick(c.path), c.line, c.webLine);
    case "chooseVersion":
      return chooseVersion(w, c.back);
    default:
      return applyEngineCommand(w, c);
  }
}

function generate(w: World, edits: GenEdit[], hostile: number | undefined): void {
  const before = w.service.active().files;
  w.service.generate((files) => {
    for (const e of edits) {
      const rel = pick(e.path);
      const current = files.get(rel);
      // A generation never leaves an empty artifact (that trips a breaker by design).
      if (e.op === "remove" && current !== undefined && files.size > 1) files.delete(rel);
      else if (e.op !== "remove") files.set(rel, current === undefined || e.op === "add" ? w.freshText("gen") : w.editLine(current, e.line, "g"));
    }
    if (hostile !== undefined) files.set(HOSTILE_NAMES[hostile] ?? "../x", "hostile\n");
  });
  w.lines.replacedVersion(before, w.service.active().files);
  for (const [rel, text] of w.service.active().files) w.noteRemote(rel, text);
}

async function applyEngineCommand(
  w: World,
  c: Extract<Command, { k: "push" | "pushCommand" | "full" | "check" | "checks" | "clockJump" | "crash" | "crashMid" | "quiet" }>,
): Promise<string[]> {
  switch (c.k) {
    case "check":
      // Like the worker: a content check runs only with nothing pending (else a full sync).
      if (w.pending.size > 0) await fullStep(w);
      else await w.checkRemote();
      return [];
    case "checks": {
      // The sweep is judged after every check (a run stops at the first miss; checkAlways names it).
      for (let i = 0; i < c.count && checkSweep(w).length === 0; i += 1) {
        if (c.webEdit?.at === i) w.webEdit(pick(c.webEdit.path), c.webEdit.line);
        await applyEngineCommand(w, { k: "check" });
      }
      return [];
    }
    case "clockJump":
      await w.clock.sleep(RECENT_MS + 1);
      return [];
    case "pushCommand":
      // What `mpsync push` runs (src/app/one-shot.ts). The watcher's pending
      // paths stay: the daemon would still look at them (a no-op once pushed).
      await w.step(async (s) => {
        const changed = await s.localChangeSet();
        return s.pushPaths(changed.keys(), { seen: changed });
      });
      return [];
    case "push": {
      const batch = new Set(w.pending);
      w.pending.clear();
      let ok = false;
      await w.step(async (s) => {
        const report = await s.pushPaths(batch);
        ok = true;
        return report;
      });
      // Like the worker: a failed pass keeps its paths for the retry.
      if (!ok) for (const p of batch) w.pending.add(p);
      return [];
    }
    case "full":
      await fullStep(w);
      return [];
    case "crash":
      if (c.loseState) {
        w.store.corruptNextLoad();
        w.provenanceLost = true;
      }
      await w.restart();
      return [];
    case "crashMid":
      w.crashIn = c.after;
      if (c.full) await fullStep(w);
      else await applyEngineCommand(w, { k: "push" });
      w.crashIn = undefined;
      return [];
    case "quiet":
      return quiet(w);
  }
}

async function fullStep(w: World): Promise<void> {
  const batch = new Set(w.pending);
  w.pending.clear();
  if ((await w.step((s) => s.fullSync())) === undefined) for (const p of batch) w.pending.add(p);
}

/**
 * No faults, no races: a full sync (forced if a breaker holds the design, as a user would
 * run `pull --force`), then a second one that must change nothing, then convergence.
 */
export async function quiet(w: World): Promise<string[]> {
  w.service.faults.length = 0;
  w.service.maxPatchFiles = undefined;
  w.races.clear();
  // The editors finish their saves before things go quiet.
  for (const [rel, whole] of [...w.halfSaves]) w.userWrite(rel, whole);
  w.crashIn = undefined;
  // The teammate sends what it saved, then this engine quiets, then the teammate catches up.
  if (w.mate !== undefined) {
    await w.mate.push();
    await w.mate.settle();
  }
  const first = await w.step((s) => s.fullSync());
  if (first === undefined) return ["quiet full sync failed without faults"];
  const force = first.plan.halt !== undefined;
  if (force) await w.step((s) => s.fullSync({ force: true }));
  const patchesBefore = w.service.patches.length;
  const backupsBefore = w.store.backups.length;
  const second = await w.step((s) => s.fullSync({ force }));
  if (second === undefined) return ["second quiet full sync failed without faults"];
  // Counted now: the teammate's last settle below may still send (its edit the service refused
  // as too large goes out once a merge changed it), which is not this sync's doing.
  const patchesAfter = w.service.patches.length;
  const backupsAfter = w.store.backups.length;
  w.pending.clear();
  const out = checkConverged(w);
  if (w.mate !== undefined) {
    await w.mate.settle();
    out.push(...w.mate.converged());
  }
  const r = second.result;
  const did = r === undefined ? [] : [...r.pushed, ...r.pulled, ...r.removed, ...r.conflicts.map((c) => c.path)];
  if (did.length > 0 || patchesAfter > patchesBefore || backupsAfter > backupsBefore) {
    out.push(`second full sync was not quiet: ${JSON.stringify(second.plan.actions.filter((a) => a.kind !== "report"))}`);
  }
  return out;
}

/** The teammate, started (open + start-up full sync) on first use. */
async function teammate(w: World): Promise<Teammate> {
  if (w.mate === undefined) {
    w.mate = new Teammate(w);
    await w.mate.start();
  }
  return w.mate;
}

/**
 * A teammate's decision: our edit is pushed and confirmed (a read past the race window), the
 * teammate pulls it and replaces a line of the file; our next sync must take that as decided:
 * no PATCH of the file back from this engine (it has nothing of its own pending there).
 */
async function mateRemoves(w: World, rel: string, line: number): Promise<string[]> {
  await fullStep(w);
  if (w.pending.size > 0 || w.service.faults.length > 0) return [];
  await w.clock.sleep(RACE_WINDOW_MS);
  await fullStep(w);
  const mate = await teammate(w);
  if ((await mate.run((s) => s.fullSync())) === "failed" || mate.pending.size > 0) return [];
  const text = mate.tree.files.get(rel);
  if (typeof text !== "string" || w.tree.files.get(rel) !== text) return [];
  mate.edit(rel, line);
  const before = w.service.patches.length;
  await mate.push();
  const decided = w.service.active().files.get(rel);
  if (w.service.patches.slice(before).every((p) => !p.applied) || decided === undefined) return [];
  const ours = w.service.patches.length;
  await fullStep(w);
  const back = w.service.patches.slice(ours).filter((p) => !w.teammatePatches.has(p) && p.files.some((f) => f.fileName === rel));
  return back.length > 0 ? [`a teammate's decision on ${rel} was pushed back: ${JSON.stringify(back[0]?.files.find((f) => f.fileName === rel)?.code)}`] : [];
}

/**
 * Our PATCH is held by the service past the client's timeout; a web edit lands; our retry merges
 * it and pushes; then the held PATCH is applied. The next sync must send the latest again (the
 * invariants then find the web edit on the service, or said).
 */
async function latePush(w: World, rel: string, line: number, webLine: number): Promise<string[]> {
  const current = w.tree.files.get(rel);
  if (typeof current !== "string") return [];
  w.userWrite(rel, w.editLine(current, line));
  // Only the late request meets the web edit: a save landing after our last read and before
  // the late PATCH is never seen by this client (README's known limits: no compare-and-swap).
  w.service.faults.length = 0;
  w.service.faults.push({ kind: "late-apply", target: "writeFiles" });
  await applyEngineCommand(w, { k: "push" });
  // A name the service holds in another case too is refused, never read (README, "Refused
  // names"): a web save of it is one this client cannot see, like a save after its last read.
  if (!caseTwinOnService(w, rel)) w.webEdit(rel, webLine);
  await fullStep(w);
  for (const [name, text] of w.service.active().files) addTo(w.lateErased, name, text);
  w.service.applyLate();
  // The service held that text from now on (world.ts notes applied PATCHes only as they answer).
  for (const patch of w.service.patches) if (patch.applied) for (const f of patch.files) addTo(w.serviceEver, f.fileName, hashContent(f.code));
  await fullStep(w);
  return [];
}

/** True when the service holds a name that collides with `rel` (or one of its folders) by case only. */
function caseTwinOnService(w: World, rel: string): boolean {
  const ours = rel.split("/");
  for (const name of w.service.active().files.keys()) {
    const theirs = name.split("/");
    const i = ours.findIndex((part, at) => part !== theirs[at]);
    if (i >= 0 && i < theirs.length && ours[i]?.toLowerCase() === theirs[i]?.toLowerCase()) return true;
  }
  return false;
}

/** The user checks out an older version (`checkout`: asked.json, then a pull): no edit it lacks is reported as displaced. */
async function chooseVersion(w: World, back: number): Promise<string[]> {
  const ids = [...w.service.artifacts.keys()];
  const id = ids[Math.max(0, ids.indexOf(w.service.activeId) - back)];
  if (id === undefined || id === w.service.activeId) return [];
  const saved = w.store.saved;
  const inFlight = Object.entries(saved?.pendingPush ?? {}).filter(([, p]) => p.sent === true);
  const unanswered: Record<string, string[]> = { ...saved?.unanswered };
  for (const [p, { hash }] of inFlight) unanswered[p] = [...(unanswered[p] ?? []), hash];
  w.asked.push({ landed: Object.fromEntries(Object.entries(saved?.landed ?? {}).map(([p, l]) => [p, l.hash])), unanswered });
  const before = w.service.active().files;
  w.service.activate(id);
  w.lines.replacedVersion(before, w.service.active().files);
  // What the folder holds as synced is replaced by the user's choice too (edits not sent yet are not).
  const synced = new Map(
    [...w.tree.files].filter((e): e is [string, string] => typeof e[1] === "string" && w.store.saved?.files[e[0]]?.hash === hashContent(e[1])),
  );
  w.lines.replacedVersion(synced, w.service.active().files);
  const since = w.events.length;
  const first = await w.step((s) => s.fullSync());
  if (first?.plan.halt !== undefined) await w.step((s) => s.fullSync({ force: true }));
  const said = w.events.slice(since).filter((e) => e.event === "conflict" && e.displaced === true);
  return said.length > 0 ? [`a version the user chose was reported as dropping an edit: ${said[0]?.message ?? ""}`] : [];
}
