/**
 * The model world: the real DesignSync on in-memory ports, a fake service and a fake clock,
 * plus the bookkeeping the invariants need (who wrote which content where, what the user is
 * owed). Commands act on the world; invariants.ts judges it.
 */
import type { Teammate } from "./teammate.js";
import { ApiError } from "../../src/api/errors.js";
import { createIgnoreMatcher } from "../../src/local/ignore-rules.js";
import { createSilentLogger } from "../../src/log/logger.js";
import type { Clock } from "../../src/core/clock.js";
import { DesignSync, type CycleReport } from "../../src/sync/design-sync.js";
import type { SyncEvent } from "../../src/sync/events.js";
import { hashContent } from "../../src/core/hash.js";
import { createMemoryFolder, type MemoryContent, type MemoryDesignStore, type MemoryLocalTree } from "../support/memory-ports.js";
import type { AskedVersion, DesignStore } from "../../src/sync/ports.js";
import type { ConflictPolicy } from "../../src/sync/model.js";
import { createFakeService, type FakeService, type PatchRecord } from "./fake-service.js";
import { TypedLines } from "./lines.js";
import { jailRemoteNames } from "../../src/sync/remote-snapshot.js";
import { CheckSweep } from "./check-sweep.js";

/** The paths commands pick from (index into this list). */
export const PATHS = ["App.tsx", "index.css", "components/Button.tsx", "lib/util.ts", "notes.md", "scratch.tmp"] as const;

/**
 * Case twins of PATHS: refusing them must not touch the legitimate twin (regressions.test.ts,
 * "case twin"). False leaves them out of the generator.
 */
export const TWINS_ENABLED = true;

/** Hostile names a generation may add: the engine must refuse every one. */
export const HOSTILE_NAMES: readonly string[] = [
  "../escape.txt",
  ".mpsync/state.json",
  ".git/config",
  "/etc/passwd",
  "a\\b.txt",
  ...(TWINS_ENABLED ? ["app.tsx", "Components/x.tsx"] : []),
];

/** Thrown by an armed crash point: the process "dies" there. */
export class Crash extends Error {}

/** A key that tells two contents apart, text or bytes. */
export function contentKey(content: MemoryContent): string {
  return typeof content === "string" ? `t:${content}` : `b:${Buffer.from(content).toString("base64")}`;
}

const LINES_PER_FILE = 4;

/** Adds `value` to the set kept under `key`. */
export function addTo<T>(map: Map<string, Set<T>>, key: string, value: T): void {
  const set = map.get(key) ?? new Set<T>();
  set.add(value);
  map.set(key, set);
}

/** Everything one model run holds. */
export class World {
  readonly policy: ConflictPolicy;
  readonly service: FakeService;
  readonly store: MemoryDesignStore;
  readonly tree: MemoryLocalTree;
  readonly clock: Clock;
  readonly events: SyncEvent[] = [];
  sync!: DesignSync;
  #now = Date.UTC(2025, 0, 1);
  #token = 0;
  /** Paths the watcher reported since the last push pass (user saves and the engine's writes). */
  readonly pending = new Set<string>();
  /** path -> contents the user wrote there and did not overwrite themselves. */
  readonly owed = new Map<string, Set<string>>();
  /** path -> every content the user ever wrote there. */
  readonly userAuthored = new Map<string, Set<string>>();
  /** path -> contents other actors (generation, web editor) put on the service. */
  readonly remoteIntroduced = new Map<string, Set<string>>();
  /** path -> hashes any artifact ever held. */
  readonly serviceEver = new Map<string, Set<string>>();
  /** What `prompt`/`checkout` recorded (state/version-intent.ts): the PATCHes answered when the user asked. */
  readonly asked: AskedVersion[] = [];
  /** path -> texts a late PATCH of ours replaced on the service: sending one back restores it (no echo). */
  readonly lateErased = new Map<string, Set<string>>();
  /** path -> hashes the engine read from or wrote to disk. */
  readonly engineDisk = new Map<string, Set<string>>();
  /** path -> remote hashes a conflict resolution made the base (documented exception). */
  readonly conflictBases = new Map<string, Set<string>>();
  /** Paths with a persisted base when each PATCH was sent. */
  readonly basedAtPatch = new Map<PatchRecord, Set<string>>();
  /** state.json was lost: without bases the engine cannot know who wrote a file. */
  provenanceLost = false;
  /** Paths where a keep-local conflict was resolved. */
  readonly keptLocal = new Set<string>();
  /** PATCHes already judged by the echo invariant. */
  patchesChecked = 0;
  /** PATCHes the teammate (a second client) sent: its own user's edits, not this engine's. */
  readonly teammatePatches = new Set<PatchRecord>();
  /** The second client, started by the first teammate command. */
  mate: Teammate | undefined;
  /** Side effects left before an armed crash (undefined: none armed). */
  crashIn: number | undefined;
  /** Paths whose next engine write the user races with a save. */
  readonly races = new Set<string>();
  /**
   * Saves caught half-written (an editor truncates, then writes): path -> the whole text, put
   * in place right after the engine's next read of the half. The halves never reach the service.
   */
  readonly halfSaves = new Map<string, string>();
  /**
   * path -> the half-written texts a `halfSave` showed there (checkNoEcho: never in a PATCH of
   * that path). A later save of the same text there (a rename back) is the user's own again.
   */
  readonly halfTexts = new Map<string, Set<string>>();
  /** Content checks since each synced path was last read (check-sweep.ts). */
  readonly sweep = new CheckSweep();
  /** The teammate's engine is running: the service's reads are its own, not this client's. */
  mateRunning = false;
  /** Every line people typed, on either side (lines.ts). */
  readonly lines = new TypedLines();
  /** How far the wall clock was stepped from the monotonic one (NTP, a laptop waking, a user). */
  #wallStep = 0;

  /** Steps the wall clock by `ms` (either way); the monotonic clock does not move. */
  stepWall(ms: number): void {
    this.#wallStep += ms;
  }

  /** Set once a crash point fired: the dying process persists nothing more. */
  #dead = false;
  #patchesNoted = 0;

  constructor(policy: ConflictPolicy) {
    this.policy = policy;
    // The wall clock may be stepped (stepWall) while the monotonic clock goes on undisturbed.
    this.clock = { now: () => this.#now + this.#wallStep, monotonic: () => this.#now, sleep: (ms) => ((this.#now += ms), Promise.resolve()) };
    const files = Object.fromEntries(PATHS.slice(0, 3).map((p, i) => [p, this.freshText(`init${i}`)]));
    this.service = createFakeService({ editorId: "modeldesign0000000000a", files, now: this.clock.now });
    for (const [p, text] of Object.entries(files)) this.noteRemote(p, text);
    ({ store: this.store, tree: this.tree } = createMemoryFolder({ matcher: createIgnoreMatcher({ patterns: [] }) }));
    this.tree.onAccess = (a) => {
      if (a.hash !== undefined && a.op !== "backup") addTo(this.engineDisk, a.rel, a.hash);
      const whole = a.op === "read" ? this.halfSaves.get(a.rel) : undefined;
      if (whole !== undefined) this.userWrite(a.rel, whole); // the editor's write completes
      if (a.op === "write" || a.op === "remove") {
        this.pending.add(a.rel);
        this.#tickCrash();
      }
    };
    this.tree.beforeWrite = (rel) => {
      if (this.#dead) throw new Crash("write after the crash point");
      if (!this.races.delete(rel)) return;
      const current = this.tree.files.get(rel);
      this.userWrite(rel, current === undefined || typeof current !== "string" ? this.freshText("race") : this.editLine(current, 0));
    };
    this.service.afterApply = () => this.#tickCrash();
    // The web editor saves one of the files of a PATCH between its attempts ("retry-after-edit").
    this.service.betweenAttempts = (names) => {
      const rel = names[0];
      if (rel !== undefined) this.webEdit(rel, 1);
    };
    this.service.onRead = (names) => {
      if (!this.mateRunning) this.sweep.read(names);
    };
    this.service.onPatch = (record) => this.basedAtPatch.set(record, new Set(Object.keys(this.store.saved?.files ?? {})));
  }

  /** A fresh token, unique in this run. */
  token(prefix: string): string {
    this.#token += 1;
    return `${prefix}${this.#token}`;
  }

  /** New file content: a few unique lines (so merges have regions to work with). */
  freshText(prefix: string): string {
    const t = this.token(prefix);
    return Array.from({ length: LINES_PER_FILE }, (_, i) => `${t} line ${i}`).join("\n") + "\n";
  }

  /** `text` with line `line` (mod its length) replaced by a fresh token; markers are resolved first. */
  editLine(text: string, line: number, prefix = "u"): string {
    const lines = text.split("\n").filter((l) => !/^(<<<<<<<|\|\|\|\|\|\|\||=======|>>>>>>>)/.test(l));
    const body = lines[lines.length - 1] === "" ? lines.slice(0, -1) : lines;
    if (body.length === 0) body.push("");
    body[line % body.length] = `${this.token(prefix)} edited`;
    return body.join("\n") + "\n";
  }

  /** The web editor saves `rel` in place on the active version, line `line` changed. */
  webEdit(rel: string, line: number): void {
    const current = this.service.active().files.get(rel);
    const next = current === undefined ? this.freshText("web") : this.editLine(current, line, "r");
    this.lines.wrote(rel, current, next);
    this.service.editInPlace(rel, next);
    this.noteRemote(rel, next);
  }

  /** The user saves `content` at `rel` (the editor overwrote whatever was there). */
  userWrite(rel: string, content: MemoryContent): void {
    this.lines.wrote(rel, this.tree.files.get(rel), content);
    this.halfSaves.delete(rel);
    if (typeof content === "string") this.halfTexts.get(rel)?.delete(content);
    this.#forgetOwed(rel);
    this.tree.put(rel, content);
    addTo(this.owed, rel, contentKey(content));
    addTo(this.userAuthored, rel, contentKey(content));
    this.pending.add(rel);
  }

  /**
   * A slow writer (a generator, a chunked save) opens `rel`, writes `first` (empty: a
   * truncate), and keeps the file open; the returned `finish` writes `whole` through the same
   * descriptor, landing where the file system puts it (MemoryLocalTree.openWriter). Resolves
   * the violations of the move's own promise: a late write the engine could not recover is lost.
   */
  slowWriter(rel: string, first: string): (whole: string) => Promise<string[]> {
    const write = this.tree.openWriter(rel);
    this.userWrite(rel, first);
    return async (whole) => {
      const lands = write();
      if (lands === "in-place" || lands === "restored") {
        if (lands === "restored") this.events.push({ event: "notice", dir: "design", code: "LATE_WRITE", files: [rel], message: `${rel}: restored` });
        this.userWrite(rel, whole);
        return [];
      }
      // Not on disk: what the user is owed and typed moves to the writer's whole text all the same.
      this.lines.wrote(rel, first, whole);
      this.owed.get(rel)?.delete(contentKey(first));
      addTo(this.owed, rel, contentKey(whole));
      addTo(this.userAuthored, rel, contentKey(whole));
      if (lands === "lost") return [`slow writer's text of ${rel} went into the file the engine replaced, which no name shows`];
      await this.store.saveConflict(rel, { local: whole }, "late-write");
      this.events.push({ event: "notice", dir: "design", code: "LATE_WRITE", files: [rel], message: `${rel}: kept as a conflict copy` });
      return [];
    };
  }

  /** The user (or a tool) removes the whole mapped folder. */
  userRemoveFolder(): void {
    for (const rel of [...this.tree.files.keys()]) this.userDelete(rel);
    this.tree.present = false;
  }

  /** The user deletes `rel`. */
  userDelete(rel: string): void {
    if (!this.tree.files.has(rel)) return;
    this.lines.wrote(rel, this.tree.files.get(rel), undefined);
    this.halfSaves.delete(rel);
    this.#forgetOwed(rel);
    this.tree.drop(rel);
    this.pending.add(rel);
  }

  /** Records content another actor put on the service. */
  noteRemote(rel: string, text: string): void {
    addTo(this.remoteIntroduced, rel, text);
    addTo(this.serviceEver, rel, hashContent(text));
  }

  /** True when an applied PATCH before `patch` had put `content` at `rel` (the engine knows it). */
  sentBefore(patch: PatchRecord, rel: string, content: string): boolean {
    const index = this.service.patches.indexOf(patch);
    return this.service.patches.slice(0, index).some((p) => p.applied && p.files.some((f) => f.fileName === rel && f.code === content));
  }

  /** Opens a new DesignSync on what the store and the tree hold (a start or a restart). */
  async open(): Promise<void> {
    this.sync = new DesignSync({
      dir: "design",
      design: this.service.editorId,
      client: this.service.client,
      local: this.tree,
      matcher: createIgnoreMatcher({ patterns: [] }),
      store: this.#engineStore(),
      policy: this.policy,
      logger: createSilentLogger(),
      emit: (e) => this.events.push(e),
      clock: this.clock,
    });
    await this.sync.open();
  }

  /**
   * Runs one engine step. An ApiError is a failed cycle (the worker would retry); a Crash
   * drops the DesignSync; anything else is a bug and propagates.
   */
  async step(run: (sync: DesignSync) => Promise<CycleReport | undefined>): Promise<CycleReport | undefined> {
    this.#now += 1000;
    const remoteBefore = new Map(this.service.active().files);
    const servedBefore = new Map([...this.service.served].map(([name, texts]) => [name, new Set(texts)]));
    const firstEvent = this.events.length;
    try {
      return await run(this.sync);
    } catch (err) {
      if (err instanceof Crash) {
        this.crashIn = undefined;
        await this.restart();
        return undefined;
      }
      if (!(err instanceof ApiError)) throw err;
      return undefined;
    } finally {
      this.#noteStep(remoteBefore, servedBefore, firstEvent);
    }
  }

  /** The daemon's content check (DesignSync.checkRemote), counted by the sweep when it answers. */
  async checkRemote(): Promise<CycleReport | undefined> {
    this.sweep.beginCheck();
    const report = await this.step((s) => s.checkRemote());
    // A halted check (the folder missing, a breaker) syncs nothing until the user acts, and a
    // full read follows that: it does not count against the sweep.
    if (report !== undefined && report.plan.halt === undefined) this.sweep.endCheck(this.sweptPaths());
    return report;
  }

  /**
   * Paths the sweep owes a read: those with a saved base that the active version holds, but for
   * names it makes refused (a case twin refuses both names: neither is read until one goes). A
   * name the version lacks has no text to read: its listing already says it is gone.
   */
  sweptPaths(): string[] {
    const names = [...this.service.active().files.keys()];
    const refused = new Set(jailRemoteNames(names).refused.map((r) => r.name));
    const held = new Set(names);
    return Object.keys(this.store.saved?.files ?? {}).filter((p) => held.has(p) && !refused.has(p));
  }

  /** A restart: the watcher's pending set is gone; the worker's start-up full sync runs. */
  async restart(): Promise<void> {
    this.#dead = false;
    this.pending.clear();
    this.races.clear();
    await this.open();
    await this.step((s) => s.fullSync());
  }

  #noteStep(remoteBefore: Map<string, string>, servedBefore: Map<string, Set<string>>, firstEvent: number): void {
    for (const e of this.events.slice(firstEvent)) {
      // A clean merge is said among the pulled files (cycle-events.ts): its base is a conflict's.
      if (e.event !== "conflict" && e.event !== "pulled") continue;
      for (const p of e.files ?? []) {
        if (this.policy === "keep-local" && e.event === "conflict") this.keptLocal.add(p);
        // The conflict's base is the remote side it read: as the step began, or a text first
        // served during it (another writer's edit landing mid-step, read back after a PATCH).
        const text = remoteBefore.get(p);
        if (text !== undefined) addTo(this.conflictBases, p, hashContent(text));
        for (const served of this.service.served.get(p) ?? []) if (servedBefore.get(p)?.has(served) !== true) addTo(this.conflictBases, p, hashContent(served));
      }
    }
    for (const patch of this.service.patches.slice(this.#patchesNoted)) {
      if (patch.applied) for (const f of patch.files) addTo(this.serviceEver, f.fileName, hashContent(f.code));
    }
    this.#patchesNoted = this.service.patches.length;
  }

  /** The store as the engine sees it: after a crash point nothing more reaches it. */
  #engineStore(): DesignStore {
    const store = this.store;
    const alive = (): void => {
      if (this.#dead) throw new Crash("store write after the crash point");
    };
    return {
      load: () => store.load(),
      save: async (state, options) => (alive(), store.save(state, options)),
      saveDaemon: async (record) => (alive(), store.saveDaemon(record)),
      putBase: async (text) => (alive(), store.putBase(text)),
      putBases: async (texts) => (alive(), store.putBases(texts)),
      hasUnsavedCache: () => store.hasUnsavedCache(),
      takeVersionIntents: () => Promise.resolve(this.asked.splice(0)),
      getBase: (hash) => store.getBase(hash),
      pruneBases: async (keep) => (alive(), store.pruneBases(keep)),
      saveConflict: async (rel, sides, stamp) => (alive(), store.saveConflict(rel, sides, stamp)),
    };
  }

  /**
   * The user overwrites `rel`: what they overwrite is no longer owed, nor is an earlier text
   * whose own lines (those no remote text had) the file still showed them, merged in by the engine.
   */
  #forgetOwed(rel: string): void {
    const current = this.tree.files.get(rel);
    const owed = this.owed.get(rel);
    if (current === undefined || owed === undefined) return;
    owed.delete(contentKey(current));
    if (typeof current !== "string") return;
    const shown = new Set(current.split(/\r?\n/));
    const remote = new Set([...(this.remoteIntroduced.get(rel) ?? [])].flatMap((t) => t.split(/\r?\n/)));
    for (const key of [...owed]) {
      if (
        key.startsWith("t:") &&
        key
          .slice(2)
          .split(/\r?\n/)
          .every((l) => l === "" || shown.has(l) || remote.has(l))
      )
        owed.delete(key);
    }
  }

  #tickCrash(): void {
    if (this.crashIn === undefined) return;
    this.crashIn -= 1;
    if (this.crashIn > 0) return;
    this.#dead = true;
    throw new Crash("crash point reached");
  }
}
