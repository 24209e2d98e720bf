/**
 * Events the engine reports: the one place that names them and says what each carries.
 * `watch --json` prints them as JSON Lines (each with a `time`), validated by the published
 * `json-output.schema.json` (app/json-documents.ts); `watch --help` lists SYNC_EVENT_NAMES;
 * the human renderer (cli/output.ts) has a badge per name. A new event is a schema here.
 */
import * as z from "zod";

/** Fields every event has. `dir` is the mapping's folder as written in .syncrc (`*`: every folder). */
const base = {
  dir: z.string().describe("the mapped folder as written in .syncrc; * for the whole daemon"),
  editorId: z.string().optional().describe("the design, when the event is about one"),
  message: z.string().describe("one line for people; never parse it"),
};
const files = z.array(z.string()).describe("paths inside the mapped folder");
const code = z.string().describe("a stable code: mpsync's (FOLDER_LOCKED, DISK_FULL, RESUMED...) or a system error's (EACCES)");

/** One schema per event name, in the order `watch --help` lists them. */
const EVENT_SCHEMAS = [
  z.strictObject({ event: z.literal("ready"), ...base }).describe("the folder's daemon watches for changes"),
  z.strictObject({ event: z.literal("pushed"), ...base, files }).describe("local changes sent to the service"),
  z.strictObject({ event: z.literal("pulled"), ...base, files, removed: files }).describe("remote changes written here (removed files are backed up)"),
  z
    .strictObject({
      event: z.literal("conflict"),
      ...base,
      files,
      line: z.number().int().optional().describe("first conflict marker's line"),
      unresolved: z.boolean().describe("markers were written: resolve and save to push"),
      reapplied: z.boolean().optional().describe("another writer's PATCH replaced a pushed edit"),
      displaced: z.boolean().optional().describe("a new version was built without a pushed edit"),
      backup: z.string().optional().describe("where the replaced copy is kept"),
      lost: z.array(z.string()).optional().describe("the lines the new version lacks"),
    })
    .describe("both sides changed a file, or a new version dropped a pushed edit"),
  z
    .strictObject({ event: z.literal("deleted"), ...base, files })
    .describe("files deleted here: the service keeps them (its API cannot delete); mpsync restore PATH brings one back"),
  z.strictObject({ event: z.literal("generating"), ...base }).describe("the design is generating: pushes wait"),
  z.strictObject({ event: z.literal("idle"), ...base }).describe("the generation ended"),
  z.strictObject({ event: z.literal("published"), ...base, previewUrl: z.string().optional() }).describe("publishOnPush compiled the pushed version"),
  z.strictObject({ event: z.literal("halted"), ...base, code }).describe("the folder needs attention (mpsync pull --force)"),
  z
    .strictObject({
      event: z.literal("rate_limited"),
      ...base,
      delayMs: z.number().describe("ms requests wait"),
      until: z.number().describe("epoch ms they resume"),
    })
    .describe("the service asked to slow down: every request waits"),
  z
    .strictObject({
      event: z.literal("error"),
      ...base,
      code,
      files: files.optional(),
      exitCode: z.number().int().optional().describe("set on the last event before watch exits"),
    })
    .describe("a failure: of a file, a design, a reload or the whole daemon"),
  z
    .strictObject({ event: z.literal("notice"), ...base, code: code.optional(), files: files.optional(), url: z.string().optional() })
    .describe("worth saying, not a failure"),
] as const;

/** Every event, told apart by `event`. */
export const syncEventSchema = z.discriminatedUnion("event", EVENT_SCHEMAS);

/** One event. */
export type SyncEvent = z.infer<typeof syncEventSchema>;

/** Stable event names. Never rename one: supervisors and scripts match on them. */
export type SyncEventName = SyncEvent["event"];

/** The event names, in help order. */
export const SYNC_EVENT_NAMES: readonly SyncEventName[] = EVENT_SCHEMAS.map((s) => s.shape.event.value);

/** An event whose `dir` and `editorId` its emitter adds (the daemon loop's, a cycle's). */
export type EventBody = SyncEvent extends infer E ? (E extends SyncEvent ? Omit<E, "dir" | "editorId"> : never) : never;

/** Where events go. */
export type EventSink = (event: SyncEvent) => void;
