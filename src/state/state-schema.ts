/**
 * The versioned shape of `.mpsync/state.json`, validated with zod on every load and save.
 * Unknown top-level keys are kept (passthrough) so a newer field written by another part of
 * the engine survives a round trip through an older schema.
 */
import * as z from "zod";

/** Current state.json format version. */
export const STATE_VERSION = 1;

/** sha256 hex. */
export const hashSchema = z.string().regex(/^[0-9a-f]{64}$/, "expected a sha256 hex hash");

/** One ScanCache entry (src/local/scan-cache.ts). */
export const scanCacheEntrySchema = z.object({
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  ctimeMs: z.number(),
  ino: z.number(),
  hash: hashSchema,
  binary: z.boolean(),
  hasMarkers: z.boolean(),
});

/** `.mpsync/scan-cache.json`: stat data and hashes of the last scan (only an accelerator). */
export const scanCacheFileSchema = z.record(z.string(), scanCacheEntrySchema);

const lastStatusSchema = z.object({ isGenerating: z.boolean(), activeArtifactId: z.string().nullable(), at: z.number() });
const lastErrorSchema = z.object({ code: z.string(), message: z.string(), at: z.number() });

/** `.mpsync/daemon.json`: what the daemon last saw (read by `mpsync status`), kept apart from the bases. */
export const daemonFileSchema = z.object({ lastStatus: lastStatusSchema.optional(), lastError: lastErrorSchema.optional() });

/** What daemon.json holds. */
export type DaemonFile = z.infer<typeof daemonFileSchema>;

const syncStateShape = {
  version: z.literal(STATE_VERSION),
  editorId: z.string().optional(),
  /** The design string from .syncrc, so a changed mapping is noticed. */
  sourceDesign: z.string().optional(),
  artifactId: z.string().optional(),
  /** path -> base hash: the content both sides agreed on last. */
  files: z.record(z.string(), z.object({ hash: hashSchema })),
  /** Read from state.json files of earlier versions; now in daemon.json. */
  lastStatus: lastStatusSchema.optional(),
  /** Read from state.json files of earlier versions; now in scan-cache.json. Malformed: dropped. */
  scanCache: scanCacheFileSchema.optional().catch(undefined),
  halted: z.object({ reason: z.string(), at: z.number() }).optional(),
  /** Read from state.json files of earlier versions; now in daemon.json. */
  lastError: lastErrorSchema.optional(),
  /** path -> hash of content the service refused as a new file (reported once per content). */
  refusedContent: z.record(z.string(), hashSchema).optional(),
  refusedLocal: z.record(z.string(), z.string()).optional(),
  /** path -> hash a cycle is writing: after a crash, a file holding it takes it as its base. */
  pending: z.record(z.string(), hashSchema).optional(),
  /** path -> {hash pushed, base before}: a PATCH in flight when the process died. */
  pendingPush: z
    .record(
      z.string(),
      z.object({
        hash: hashSchema,
        previous: hashSchema.nullable(),
        basis: hashSchema.optional(),
        /** The PATCH carrying it went out (a journal entry may be written before the decision to send). */
        sent: z.literal(true).optional(),
      }),
    )
    .optional(),
  /**
   * path -> hashes of texts sent by PATCHes whose answer never came and that a newer PATCH
   * replaced (oldest first, a few kept): such a request may still land late, and must be
   * recognised as ours (other-writers.ts `own-late`), never pulled.
   */
  unanswered: z.record(z.string(), z.array(hashSchema)).optional(),
  /**
   * path -> {hash pushed, remote hash it replaced, artifact, when answered (wall clock, shown
   * only), settled, ...}: PATCHes answered on the active artifact. Until `settled` (the service
   * seen holding the text after the race window), a remote text without the edit may be a race
   * (other-writers.ts decides).
   */
  landed: z
    .record(
      z.string(),
      z.object({
        hash: hashSchema,
        previous: hashSchema.nullable(),
        /** previous null (no such file on the service): the synced text the edit was made on. */
        basis: hashSchema.optional(),
        artifactId: z.string(),
        at: z.number().optional(),
        settled: z.literal(true).optional(),
        /** Seen idle on this artifact after the answer, or a prompt sent after it: later versions were built on it. */
        visible: z.literal(true).optional(),
        /** This PATCH merged back an edit a race removed: a second removal stands. */
        mergedBack: z.literal(true).optional(),
      }),
    )
    .optional(),
};

/** state.json (unknown keys kept at run time). */
export const syncStateSchema = z.looseObject(syncStateShape);

/** The persisted per-folder state (typed without the passthrough index signature). */
export type SyncState = z.infer<z.ZodObject<typeof syncStateShape>>;

/** What save() accepts: the version is filled in. */
export type SyncStateInput = Omit<SyncState, "version"> & { version?: typeof STATE_VERSION };

/** A fresh state (first run, or after a corrupt file was moved aside). */
export function emptySyncState(): SyncState {
  return { version: STATE_VERSION, files: {} };
}
