/**
 * An in-memory Design Generation Service behind the V3Client port: artifacts with files,
 * versions, the active artifact, and per-call fault injection. Every answer goes through the
 * real client's response code (parseSuccess, errorFromResponse, errorFromTransport), so the
 * engine sees exactly the ApiErrors the HTTP client would raise once its retries gave up.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import type { V3Client } from "../../src/api/client-types.js";
import { callContext, ENDPOINTS, expandPath, type Endpoint } from "../../src/api/endpoints.js";
import { MpsyncError } from "../../src/core/errors.js";
import { TransportFailure } from "../../src/api/http-transport.js";
import { errorFromResponse, errorFromTransport, parseSuccess } from "../../src/api/response.js";
import type { Artifact, FileWrite } from "../../src/api/schemas.js";

/** What a fault does to one call. */
export type FaultKind =
  | "server-error"
  | "dropped-after-write"
  | "timeout"
  | "rate-limited"
  | "payment-required"
  | "bad-request"
  | "too-large"
  | "malformed"
  | "schema-invalid"
  /**
   * A PATCH whose first attempt fails (503, reset, timeout) while the web editor saves one of
   * its files; the client then repeats it only if the endpoint is marked idempotent, as the
   * request executor would (a repeat would overwrite the web edit).
   */
  | "retry-after-edit"
  /** The service holds the PATCH past the client's timeout (no answer) and applies it when `applyLate` is called. */
  | "late-apply";

/** Every fault kind, for generators. */
export const FAULT_KINDS: readonly FaultKind[] = [
  "server-error",
  "dropped-after-write",
  "timeout",
  "rate-limited",
  "payment-required",
  "bad-request",
  "too-large",
  "malformed",
  "schema-invalid",
];

/** Client methods a fault can target. */
export type FaultTarget = "getActiveArtifact" | "readFiles" | "writeFiles" | "listVersions" | "any";

/** One artifact (a version of the design). */
export interface FakeArtifact {
  id: string;
  label: string;
  files: Map<string, string>;
  createdAt: number;
}

/** One PATCH as the service received it. */
export interface PatchRecord {
  artifactId: string;
  files: FileWrite[];
  /** The files were written (a fault may still have lost the answer). */
  applied: boolean;
  /** Content of each named file in the artifact just before this PATCH. */
  before: Map<string, string | undefined>;
}

/** The fake service: state, fault queue, call log, and the V3Client over it. */
export interface FakeService {
  readonly editorId: string;
  readonly client: V3Client;
  readonly artifacts: Map<string, FakeArtifact>;
  readonly patches: PatchRecord[];
  activeId: string;
  /** Faults still waiting for their call. */
  readonly faults: { kind: FaultKind; target: FaultTarget }[];
  active(): FakeArtifact;
  /** A new active artifact derived from the active one (a finished generation). */
  generate(edit: (files: Map<string, string>) => void): FakeArtifact;
  /** Makes an existing artifact active (another version picked in the web editor). */
  activate(id: string): void;
  /** In-place edit of the active artifact (the web editor's code view). */
  editInPlace(name: string, content: string): void;
  /** Runs after a PATCH is applied (crash simulation); may throw. */
  afterApply: (() => void) | undefined;
  /** Runs after each answered readFiles with the names it asked for. */
  onRead: ((names: readonly string[]) => void) | undefined;
  /** name -> every content a readFiles answer delivered to the client. */
  readonly served: Map<string, Set<string>>;
  /** New file names the service refuses to create (answered 400, whole PATCH refused). */
  readonly refuseNew: Set<string>;
  /** Runs when a PATCH arrives, before anything else (observers). */
  onPatch: ((record: PatchRecord) => void) | undefined;
  /** A PATCH of more files than this is answered 413, nothing applied (a body-size limit). */
  maxPatchFiles: number | undefined;
  /**
   * Runs once, when the next PATCH arrives, before it is applied: another writer acting between
   * a client's pre-push read and its PATCH (a teammate's PATCH, a generation that started
   * earlier). Cleared before it runs, so its own PATCHes pass.
   */
  beforePatch: (() => Promise<void>) | undefined;
  /** Runs once (then cleared) after the next PATCH is answered or refused, before the client goes on. */
  afterPatch: (() => void) | undefined;
  /** Keeps a PATCH a `late-apply` fault held. */
  holdLate(apply: () => void): void;
  /** Applies the PATCHes a `late-apply` fault held, in order. */
  applyLate(): void;
  /** The web editor's save between two attempts of a PATCH ("retry-after-edit"): the names sent. */
  betweenAttempts: ((names: string[]) => void) | undefined;
}

const JSON_HEADERS: IncomingHttpHeaders = { "content-type": "application/json" };

/** Creates a service holding one design whose first artifact has `files`. */
export function createFakeService(options: { editorId: string; files: Record<string, string>; now: () => number }): FakeService {
  const artifacts = new Map<string, FakeArtifact>();
  const held: Array<() => void> = [];
  let counter = 0;
  const addArtifact = (files: Map<string, string>): FakeArtifact => {
    counter += 1;
    const id = `00000000-0000-4000-8000-${String(counter).padStart(12, "0")}`;
    const artifact = { id, label: `v${counter}`, files, createdAt: options.now() };
    artifacts.set(id, artifact);
    return artifact;
  };
  const first = addArtifact(new Map(Object.entries(options.files)));
  const service: FakeService = {
    editorId: options.editorId,
    client: undefined as unknown as V3Client,
    artifacts,
    patches: [],
    activeId: first.id,
    faults: [],
    afterApply: undefined,
    onPatch: undefined,
    refuseNew: new Set(),
    maxPatchFiles: undefined,
    beforePatch: undefined,
    afterPatch: undefined,
    betweenAttempts: undefined,
    holdLate: (apply) => held.push(apply),
    applyLate: () => {
      for (const apply of held.splice(0)) apply();
    },
    served: new Map(),
    onRead: undefined,
    active() {
      const a = artifacts.get(service.activeId);
      if (a === undefined) throw new Error("no active artifact");
      return a;
    },
    generate(edit) {
      const files = new Map(service.active().files);
      edit(files);
      const made = addArtifact(files);
      service.activeId = made.id;
      return made;
    },
    activate(id) {
      if (!artifacts.has(id)) throw new Error(`unknown artifact ${id}`);
      service.activeId = id;
    },
    editInPlace(name, content) {
      service.active().files.set(name, content);
    },
  };
  (service as { client: V3Client }).client = createFakeClient(service, options.now);
  return service;
}

/** Takes the first queued fault aimed at `method` (or at any call). */
function takeFault(service: FakeService, method: FaultTarget): FaultKind | undefined {
  const index = service.faults.findIndex((f) => f.target === "any" || f.target === method);
  if (index < 0) return undefined;
  return service.faults.splice(index, 1)[0]?.kind;
}

/** The URL a call to `endpoint` would have, built from the one endpoint table. */
function urlOf(endpoint: Endpoint<unknown>, params: Readonly<Record<string, string>>, query = ""): string {
  return `https://fake.test/api${expandPath(endpoint.template, params)}${query}`;
}

function jsonResponse(status: number, body: unknown, headers: IncomingHttpHeaders = JSON_HEADERS) {
  return { status, headers, body: JSON.stringify(body) };
}

/**
 * Answers one call: `effect` runs (the server did the work) unless the fault struck before it,
 * then the answer (or its loss) goes through the client's own response handling.
 */
function answer<T>(fault: FaultKind | undefined, endpoint: Endpoint<T>, url: string, now: number, effect: () => unknown, invalid: unknown): T {
  const ctx = callContext(endpoint, url, []);
  const schema: z.ZodType<T> = endpoint.response;
  switch (fault) {
    case undefined:
      return parseSuccess(ctx, jsonResponse(200, effect()), schema);
    case "server-error":
      throw errorFromResponse(ctx, jsonResponse(500, { error: "internal error" }), now);
    case "rate-limited":
      throw errorFromResponse(ctx, jsonResponse(429, { error: "slow down" }, { ...JSON_HEADERS, "retry-after": "2" }), now);
    case "payment-required":
      throw errorFromResponse(ctx, jsonResponse(402, { error: "out of credits" }), now);
    case "bad-request":
      throw errorFromResponse(ctx, jsonResponse(400, { error: "refused" }), now);
    case "too-large":
      throw errorFromResponse(ctx, jsonResponse(413, { error: "request body too large" }), now);
    case "timeout":
      throw errorFromTransport(ctx, new TransportFailure("timeout", true, "no response within 30000 ms", undefined));
    case "dropped-after-write":
      effect();
      throw errorFromTransport(ctx, new TransportFailure("network", true, "network error (ECONNRESET)", undefined));
    case "malformed":
      effect();
      return parseSuccess(ctx, { status: 200, headers: { "content-type": "text/html" }, body: "<html>gateway</html>" }, schema);
    case "schema-invalid":
      effect();
      return parseSuccess(ctx, jsonResponse(200, invalid), schema);
    case "late-apply":
    case "retry-after-edit":
      // Reached only where no edit between attempts is modelled: a plain failed attempt.
      throw errorFromResponse(ctx, jsonResponse(503, { error: "unavailable" }), now);
  }
}

function createFakeClient(service: FakeService, now: () => number): V3Client {
  const artifactOf = (editorId: string, id: string): FakeArtifact => {
    const a = service.artifacts.get(id);
    if (editorId !== service.editorId || a === undefined) throw new MpsyncError("NOT_FOUND", `no artifact ${id}`);
    return a;
  };
  const notModelled = (name: string) => (): never => {
    throw new MpsyncError("INTERNAL", `${name} is not modelled by the fake service`);
  };
  const modelled: Partial<V3Client> = {
    health: () => Promise.resolve({ status: "ok" }),
    getActiveArtifact: (editorId) =>
      call(() => {
        const fault = takeFault(service, "getActiveArtifact");
        const a = artifactOf(editorId, service.activeId);
        // The fake always has an artifact: the answer is never the "no artifact yet" shape.
        return answer(
          fault,
          ENDPOINTS.getActiveArtifact,
          urlOf(ENDPOINTS.getActiveArtifact, { editorId }),
          now(),
          () => ({ artifactId: a.id, files: [...a.files.keys()] }),
          { artifactId: "", files: [] },
        ) as Artifact;
      }),
    readFiles: (editorId, artifactId, fileNames) =>
      call(() => {
        const fault = takeFault(service, "readFiles");
        const names = ENDPOINTS.readFiles.body.parse({ fileNames }).fileNames;
        const a = artifactOf(editorId, artifactId);
        const effect = () => ({ files: names.flatMap((name) => (a.files.has(name) ? [{ name, content: a.files.get(name) }] : [])) });
        const got = answer(fault, ENDPOINTS.readFiles, urlOf(ENDPOINTS.readFiles, { editorId, artifactId }), now(), effect, {
          files: [{ name: names[0] ?? "x" }],
        }).files;
        for (const f of got) service.served.set(f.name, (service.served.get(f.name) ?? new Set()).add(f.content));
        service.onRead?.(names);
        return got;
      }),
    writeFiles: async (editorId, artifactId, files) => {
      await Promise.resolve();
      const hook = service.beforePatch;
      service.beforePatch = undefined;
      if (hook !== undefined) await hook();
      const after = service.afterPatch;
      service.afterPatch = undefined;
      return call(() => {
        const body = ENDPOINTS.writeFiles.body.parse({ files });
        const a = artifactOf(editorId, artifactId);
        const refused = body.files.some((f) => !a.files.has(f.fileName) && service.refuseNew.has(f.fileName));
        const tooLarge = service.maxPatchFiles !== undefined && body.files.length > service.maxPatchFiles;
        let fault = refused ? "bad-request" : tooLarge ? "too-large" : takeFault(service, "writeFiles");
        if (fault === "retry-after-edit") {
          // The first attempt failed before anything was written; the web editor saves; the
          // client repeats the call only when the endpoint says that is safe.
          service.betweenAttempts?.(body.files.map((f) => f.fileName));
          fault = ENDPOINTS.writeFiles.idempotent ? undefined : "retry-after-edit";
        }
        const record: PatchRecord = {
          artifactId,
          files: body.files,
          applied: false,
          before: new Map(body.files.map((f) => [f.fileName, a.files.get(f.fileName)])),
        };
        service.patches.push(record);
        service.onPatch?.(record);
        const effect = () => {
          for (const f of body.files) a.files.set(f.fileName, f.code);
          record.applied = true;
          service.afterApply?.();
          return { files: [...a.files.keys()] };
        };
        if (fault === "late-apply") {
          service.holdLate(effect);
          fault = "timeout";
        }
        return answer(fault, ENDPOINTS.writeFiles, urlOf(ENDPOINTS.writeFiles, { editorId, artifactId }), now(), effect, { files: "nope" }).files;
      }).finally(() => after?.());
    },
    listVersions: (editorId, skip = 0) =>
      call(() => {
        const fault = takeFault(service, "listVersions");
        if (editorId !== service.editorId) throw new MpsyncError("NOT_FOUND", "no design");
        const all = [...service.artifacts.values()].reverse();
        const effect = () => ({
          versions: all.slice(skip, skip + 20).map((a) => ({ artifactId: a.id, versionLabel: a.label, title: a.label, timeCreated: a.createdAt })),
          hasMore: skip + 20 < all.length,
        });
        return answer(fault, ENDPOINTS.listVersions, urlOf(ENDPOINTS.listVersions, { editorId }, `?skip=${skip}`), now(), effect, {
          versions: [{ versionLabel: "seven" }],
        });
      }),
    listAllVersions: notModelled("listAllVersions"),
    getStatus: (editorId) =>
      call(() => {
        const a = artifactOf(editorId, service.activeId);
        return { isGenerating: false, activeArtifactId: a.id, availableFiles: [...a.files.keys()] };
      }),
  };
  // Every other endpoint fails when called: the engine never calls one, and a new endpoint
  // needs no entry here.
  const unmodelled = Object.fromEntries(Object.keys(ENDPOINTS).map((name) => [name, notModelled(name)]));
  return { ...unmodelled, ...modelled } as V3Client;
}

/** Runs `fn` as an async call (a rejection, never a synchronous throw, like the real client). */
async function call<T>(fn: () => T): Promise<T> {
  await Promise.resolve();
  return fn();
}
