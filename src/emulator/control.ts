/**
 * Test controls: what the web editor, a finished generation or a flaky network would do to
 * the service, driven from the test (same process) or over `/__control` (other processes).
 */
import { checkCompressMode } from "./compression.js";
import type { ConnectionStats } from "./connection-ledger.js";
import type { Version } from "../api/schemas.js";
import type { FaultState } from "./faults.js";
import type { GenerationOutcome, GenerationRunner } from "./generation.js";
import { ownerOf } from "./ids.js";
import type { RequestLog, RequestPredicate } from "./request-log.js";
import { scaffoldFiles } from "./scaffold.js";
import type { EmulatorStore } from "./store.js";
import type { CompressMode, FaultMatch, FaultOptions, InjectedFault, RequestLogEntry, ResolvedOptions, StoredDesign, WaitForRequestOptions } from "./types.js";

/** Ids of a design made by the control API. */
export interface CreatedDesign {
  editorId: string;
  artifactId: string;
  canvasId: string;
}

/** A read-only view of one design. */
export interface DesignSnapshot {
  editorId: string;
  name: string;
  editorUrl: string;
  /** `{appUrl}/s/<canvasId>?nodeIds=<editorId>`: a canvas URL resolve-url accepts. */
  canvasUrl: string;
  canvasId: string;
  /** Null until the first publish. */
  previewUrl: string | null;
  publishedArtifactId: string | null;
  designSystemId: string | null;
  /** Null until the design's first artifact (a prompted design's first generation). */
  activeArtifactId: string | null;
  isGenerating: boolean;
  /** Oldest first. */
  versions: Version[];
  messageCount: number;
}

/** The programmatic controls of a running emulator. Unknown designs or artifacts throw (status 404). */
export interface EmulatorControl {
  /** Creates a design owned by `ownerKey`'s account: the scaffold, or exactly `files`. */
  createDesign(ownerKey: string, init?: { name?: string; files?: Record<string, string> }): CreatedDesign;
  getDesign(editorId: string): DesignSnapshot;
  /** Files of an artifact (the active one by default). */
  getFiles(editorId: string, artifactId?: string): Record<string, string>;
  activeArtifactId(editorId: string): string;
  /** Edits a file in place, as the web editor does; any name is accepted, even hostile ones. */
  editFile(editorId: string, name: string, content: string, artifactId?: string): void;
  /** Removes a file in place (the API itself cannot delete). */
  removeFile(editorId: string, name: string, artifactId?: string): void;
  /** Replaces the active artifact's files, or appends them as a new active artifact; returns its id. */
  setFiles(editorId: string, files: Record<string, string>, options?: { newArtifact?: boolean; title?: string }): string;
  /** A user picked another version in the web editor. */
  setActiveArtifact(editorId: string, artifactId: string): void;
  /** Starts a generation (no credit taken; no timer unless `autoFinish`); returns the requestId. */
  startGeneration(editorId: string, prompt: string, options?: { autoFinish?: boolean }): string;
  /** Finishes the running generation now. */
  finishGeneration(editorId: string): GenerationOutcome;
  setCredits(key: string, credits: number): void;
  getCredits(key: string): number;
  /** Merges random-fault options (latencyMs, handshakeMs, errorRate, dropRate, seed). */
  setFaults(faults: FaultOptions): void;
  /** The next `times` requests matching `match` get `fault`. */
  failNext(match: FaultMatch, fault: InjectedFault, times?: number): void;
  /** Removes random faults and queued one-off faults. */
  clearFaults(): void;
  /** Applies the requests `late` faults held back (the service applying them after the client gave up); resolves how many. */
  applyLateWrites(): Promise<number>;
  /** The request log, oldest first. */
  requests(): RequestLogEntry[];
  waitForRequest(predicate: RequestPredicate, options?: WaitForRequestOptions): Promise<RequestLogEntry>;
  countRequests(predicate?: RequestPredicate): number;
  resetRequestLog(): void;
  /**
   * TCP connections the server accepted since it started (a client with keep-alive opens one
   * and reuses it; each new one costs a TCP and TLS handshake against the real service), and
   * the bytes of all of them, headers included.
   */
  connections(): ConnectionStats;
  /** Compresses answers from now on when asked ("auto") or never ("off"); see EmulatorOptions.compress. */
  setCompression(mode: CompressMode): void;
}

/** Collaborators of the controls. */
export interface ControlDeps {
  store: EmulatorStore;
  runner: GenerationRunner;
  faults: FaultState;
  requestLog: RequestLog;
  options: ResolvedOptions;
  /** TCP connections accepted so far and their bytes. */
  connections: () => ConnectionStats;
  /** The server's compression mode, shared. */
  compression: { mode: CompressMode };
}

/** Builds the controls over the emulator's parts. */
export function createControl(deps: ControlDeps): EmulatorControl {
  const { store, runner, faults, requestLog, options } = deps;
  const artifactOf = (editorId: string, artifactId?: string) => store.requireArtifact(store.requireDesign(editorId), artifactId);
  return {
    createDesign(ownerKey, init = {}) {
      const name = init.name ?? "Untitled";
      const files = init.files === undefined ? scaffoldFiles(name) : new Map(Object.entries(init.files));
      const design = store.createDesign({ owner: ownerOf(ownerKey), name, files, title: init.name ?? "Initial version" });
      return { editorId: design.editorId, artifactId: artifactOf(design.editorId).id, canvasId: design.canvasId };
    },
    getDesign: (editorId) => snapshotOf(store.requireDesign(editorId), options),
    getFiles: (editorId, artifactId) => Object.fromEntries(artifactOf(editorId, artifactId).files),
    activeArtifactId: (editorId) => artifactOf(editorId).id,
    editFile(editorId, name, content, artifactId) {
      artifactOf(editorId, artifactId).files.set(name, content);
      store.changed();
    },
    removeFile(editorId, name, artifactId) {
      artifactOf(editorId, artifactId).files.delete(name);
      store.changed();
    },
    setFiles(editorId, files, setOptions = {}) {
      const design = store.requireDesign(editorId);
      const content = new Map(Object.entries(files));
      if (setOptions.newArtifact === true) {
        return store.addArtifact(design, content, setOptions.title ?? "Edited in the web editor").id;
      }
      const active = store.requireArtifact(design);
      active.files = content;
      store.changed();
      return active.id;
    },
    setActiveArtifact: (editorId, artifactId) => store.setActiveArtifact(store.requireDesign(editorId), artifactId),
    startGeneration: (editorId, prompt, startOptions = {}) =>
      runner.start(store.requireDesign(editorId), prompt, { autoFinish: startOptions.autoFinish === true }),
    finishGeneration: (editorId) => runner.finish(editorId),
    setCredits: (key, credits) => store.setCredits(ownerOf(key), credits),
    getCredits: (key) => store.credits(ownerOf(key)),
    setFaults: (partial) => faults.set(partial),
    failNext: (match, fault, times) => faults.failNext(match, fault, times),
    clearFaults: () => faults.clear(),
    applyLateWrites: () => faults.applyLate(),
    requests: () => requestLog.entries(),
    waitForRequest: (predicate, waitOptions) => requestLog.waitFor(predicate, waitOptions),
    countRequests: (predicate) => requestLog.count(predicate),
    resetRequestLog: () => requestLog.reset(),
    connections: () => deps.connections(),
    setCompression(mode) {
      checkCompressMode(mode);
      deps.compression.mode = mode;
    },
  };
}

function snapshotOf(design: StoredDesign, options: ResolvedOptions): DesignSnapshot {
  return {
    editorId: design.editorId,
    name: design.name,
    editorUrl: `${options.appUrl}/c/${design.editorId}`,
    canvasUrl: `${options.appUrl}/s/${design.canvasId}?nodeIds=${design.editorId}`,
    canvasId: design.canvasId,
    previewUrl: design.previewUrl,
    publishedArtifactId: design.publishedArtifactId,
    designSystemId: design.designSystemId,
    activeArtifactId: design.activeArtifactId,
    isGenerating: design.generation !== null,
    versions: [...design.artifacts.values()].map((a) => ({
      artifactId: a.id,
      versionLabel: `v${a.version}`,
      title: a.title,
      timeCreated: a.timeCreated,
    })),
    messageCount: design.messages.length,
  };
}
