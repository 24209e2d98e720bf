/**
 * Every document the CLI prints with --json, as zod schemas: the one declaration of each (the
 * types the use cases return are `z.output` of these), the source of `json-output.schema.json`
 * (published beside syncrc.schema.json; users script against it) and of the types
 * `Output.result` and `Output.jsonLine` accept, so a command cannot print a field the schema
 * lacks. Objects are strict: a new field is a change here first. A cycle's summary is declared
 * beside summarizeCycle (sync/cycle-summary.ts), which the daemon uses too.
 */
import * as z from "zod";
import { cycleSummarySchema } from "../sync/cycle-summary.js";
import { syncEventSchema } from "../sync/events.js";

const text = z.string();
const paths = z.array(z.string()).describe("paths inside the mapped folder");
const dir = z.string().describe("the mapped folder as written in .syncrc");
const epochMs = z.number().describe("epoch milliseconds");

/** What a pull or push did (or would do, with --dry-run). */
const cycleSummary = cycleSummarySchema.shape;
const timedSummary = z.strictObject({ ...cycleSummary, elapsedMs: z.number() });

/** A pull (or push) of one folder: app/folder-pull.ts. */
export type TimedSummary = z.output<typeof timedSummary>;

/** A pull, push or sync of one folder without a daemon: app/one-shot.ts. */
const oneShotSummary = z.strictObject({ ...cycleSummary, dir, editorId: text, skippedSecrets: paths.optional() });
export type OneShotSummary = z.output<typeof oneShotSummary>;

/** A design as the service returned it (create, init --create). */
const design = z.strictObject({
  editorId: text,
  editorUrl: text,
  previewUrl: text.nullable(),
  activeArtifactId: text.nullable(),
  availableFiles: z.array(text),
});

const statusReport = z.strictObject({
  dir,
  editorId: text.optional(),
  state: z.enum(["idle", "generating", "unknown", "halted", "error", "no-version"]),
  generating: z.boolean().optional(),
  statusAgeSec: z.number().optional(),
  activeArtifactId: text.optional(),
  activeVersion: text.optional(),
  localChanges: paths,
  remoteChanges: paths,
  conflicts: paths,
  unresolvedConflicts: paths,
  deletedLocally: paths,
  halted: text.optional(),
  paused: z.strictObject({ at: epochMs, by: text }).optional(),
  lastError: z.strictObject({ code: text, message: text, at: epochMs, ageSec: z.number() }).optional(),
  daemon: z.strictObject({ pid: z.number().int(), uptimeSec: z.number(), command: text }).optional(),
  staleLock: z.strictObject({ pid: z.number().int(), command: text }).optional(),
  notSynced: z.array(
    z.strictObject({
      path: text,
      reason: text,
      needsAttention: z
        .boolean()
        .describe("false: never synced by design (a symbolic link, a special file, a binary file the service never held); status does not fail for it"),
    }),
  ),
  serviceError: text.optional(),
  error: text.optional(),
  errorCode: text.optional(),
  note: text.optional(),
});

/**
 * One design's status (app/collect-status.ts). `state` `no-version`: the design has no
 * artifact yet; `paused`: held by `mpsync pause`; `lastError.ageSec`: how long ago, when status
 * printed; `daemon`: the live process holding the folder's lock; `staleLock`: a lock left by a
 * process that is gone; `notSynced`: local files left out of sync and why; `serviceError`: the
 * service could not be reached (the lists are the local side only); `note`: an informational line.
 */
export type DesignStatusReport = z.output<typeof statusReport>;

/** One file left out of sync. */
export type NotSynced = DesignStatusReport["notSynced"][number];

/** What `mpsync publish` did for one folder. */
const publishOutcome = z.strictObject({
  dir,
  editorId: text.optional(),
  artifactId: text.optional(),
  previewUrl: text.optional(),
  compiledFiles: z.number().int().optional(),
  warning: text.optional(),
  error: z.strictObject({ code: text, message: text, compiler: text.optional() }).optional(),
});
export type PublishOutcome = z.output<typeof publishOutcome>;

/** One check of `mpsync doctor`; `fix` is null when there is nothing to do (kept for a stable shape). */
const doctorCheck = z.strictObject({ name: text, ok: z.boolean(), detail: text, fix: text.nullable() });
export type DoctorCheck = z.output<typeof doctorCheck>;

const pulledAfter = {
  pull: timedSummary.optional().describe("what the pull did; absent when another process (pulledBy) pulls"),
  pulledBy: text.optional().describe("the running mpsync process that pulls instead"),
};
/** An event as `watch --json` prints it: the event and when it was printed. */
const eventLine = z.discriminatedUnion(
  "event",
  syncEventSchema.options.map((o) =>
    o.extend({ time: z.iso.datetime().describe("when it was printed") }).describe(o.description ?? o.shape.event.value),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);
/** One file `mpsync resolve` wrote: `conflictAt`, when the conflict was saved; `backedUpTo`, where the replaced file went. */
const resolvedConflict = z.strictObject({ dir, path: text, side: z.enum(["ours", "theirs"]), conflictAt: epochMs.optional(), backedUpTo: text.optional() });
export type ResolvedConflict = z.output<typeof resolvedConflict>;

const version = z.strictObject({ artifactId: text, versionLabel: text, title: text, timeCreated: epochMs });

/** The --json document of each command (by command name), and of a failure or an interrupt. */
export const CLI_DOCUMENTS = {
  status: z.strictObject({
    ok: z.boolean(),
    designs: z.array(statusReport),
    key: z.strictObject({ source: z.enum(["env", "keychain", "file", "none"]), baseUrl: text.optional(), store: text.optional(), serviceUrl: text }),
  }),
  "status-watch": z
    .strictObject({ ok: z.boolean(), at: z.iso.datetime(), designs: z.array(statusReport) })
    .describe("status --watch --json: one JSON line per collection"),
  pull: z.strictObject({
    ok: z.boolean(),
    dryRun: z.boolean(),
    designs: z.array(z.strictObject({ ...oneShotSummary.shape, elapsedMs: z.number() })),
    events: z.array(syncEventSchema),
  }),
  sync: z.strictObject({
    ok: z.boolean(),
    designs: z.array(z.strictObject({ ...cycleSummary, dir, editorId: text.optional(), by: z.enum(["daemon", "here"]), message: text })),
    refused: z.array(z.strictObject({ dir, code: text, message: text })),
  }),
  pause: z.strictObject({ ok: z.literal(true), designs: z.array(z.strictObject({ dir, paused: z.boolean(), daemon: z.boolean(), message: text })) }),
  init: z.strictObject({
    ok: z.boolean(),
    dir,
    editorId: text,
    config: z.strictObject({ path: text, created: z.boolean() }),
    design: design.optional().describe("the design init --create made"),
    ...pulledAfter,
  }),
  create: z.strictObject({
    ok: z.literal(true),
    editorId: text,
    editorUrl: text,
    previewUrl: text.nullable(),
    activeArtifactId: text.nullable(),
    generating: z.boolean(),
    generated: z.boolean().optional().describe("with --wait: false when the generation ended without a version"),
  }),
  prompt: z.strictObject({
    ok: z.boolean(),
    dir,
    editorId: text,
    requestId: text,
    waited: z.boolean(),
    newVersion: z.boolean().optional(),
    activeArtifactId: text.optional(),
    reply: text.optional(),
    ...pulledAfter,
  }),
  versions: z.strictObject({ ok: z.literal(true), dir, editorId: text, versions: z.array(version), hasMore: z.boolean(), active: text }),
  checkout: z.strictObject({
    ok: z.boolean(),
    dir,
    editorId: text,
    from: z.strictObject({ versionLabel: text.optional(), artifactId: text }),
    artifactId: text,
    versionLabel: text.optional(),
    ...pulledAfter,
  }),
  snapshot: z.strictObject({ ok: z.literal(true), dir, editorId: text, name: text, sourceArtifactId: text, artifactId: text, versionLabel: text.optional() }),
  history: z.strictObject({
    ok: z.literal(true),
    branch: text,
    added: z.array(z.strictObject({ versionLabel: text, sha: text })),
    skipped: z.number().int(),
    refused: z.array(z.strictObject({ versionLabel: text, name: text, reason: text })),
    incomplete: z
      .array(z.strictObject({ versionLabel: text, missing: z.array(z.strictObject({ target: text, from: text })) }))
      .describe("versions whose commit lacks files their code imports (no name found for the import)"),
  }),
  publish: z.strictObject({ ok: z.boolean(), designs: z.array(publishOutcome) }),
  diff: z.strictObject({
    ok: z.literal(true),
    dir,
    editorId: text,
    against: z.enum(["base", "remote"]),
    files: z.array(z.strictObject({ path: text, patch: text, binary: z.boolean() })),
  }),
  open: z.strictObject({ ok: z.literal(true), dir, editorId: text, url: text, opened: z.boolean() }),
  restore: z.union([
    z
      .strictObject({
        ok: z.literal(true),
        dir,
        path: text,
        copies: z.array(z.strictObject({ at: epochMs.optional(), reason: text, file: text.optional() })),
        backups: z
          .strictObject({ folders: z.int(), files: z.int(), bytes: z.int(), keepBackupsDays: z.int() })
          .describe("what the folder's .mpsync/backups/ holds in all, and the rule in force (0: kept forever)"),
      })
      .describe("--list"),
    z
      .strictObject({ ok: z.literal(false), dir, path: text, wouldRemove: z.array(text), wouldAdd: z.array(text), needs: z.literal("--force") })
      .describe("refused: the copy lacks synced lines"),
    z.strictObject({
      ok: z.literal(true),
      dir,
      path: text,
      restored: z.strictObject({ at: epochMs.optional(), reason: text }),
      currentBackedUpTo: text.optional(),
    }),
  ]),
  resolve: z.strictObject({ ok: z.literal(true), resolved: z.array(resolvedConflict) }),
  "design-systems": z.strictObject({ ok: z.literal(true), designSystems: z.array(z.strictObject({ id: text, name: text, description: text.nullish() })) }),
  "resolve-url": z.strictObject({ ok: z.literal(true), url: text, editorId: text }),
  login: z.strictObject({ ok: z.literal(true), baseUrl: text, store: z.enum(["keychain", "file"]), location: text, latencyMs: z.number() }),
  "login-move": z.strictObject({ ok: z.literal(true), moved: z.array(text) }).describe("login --move-keys: the addresses whose keys moved into the keychain"),
  logout: z.strictObject({
    ok: z.literal(true),
    removed: z.boolean(),
    path: text,
    baseUrl: text.nullable(),
    from: z.array(z.enum(["keychain", "file"])),
  }),
  doctor: z.strictObject({ ok: z.boolean(), checks: z.array(doctorCheck) }),
  emulator: z.strictObject({ ok: z.literal(true), baseUrl: text }),
  "emulator-play": z
    .strictObject({ ok: z.literal(true), editorId: text, path: text.optional(), action: z.enum(["appended", "removed", "generating"]) })
    .describe("emulator web-edit and emulator generate: what was played in the emulator's web editor"),
  event: eventLine.describe("watch and dev: one JSON line per event (sync/events.ts)"),
  error: z
    .strictObject({ ok: z.literal(false), error: z.strictObject({ code: text, message: text, exitCode: z.number().int() }) })
    .describe("any command that failed"),
  interrupted: z
    .strictObject({ ok: z.literal(false), interrupted: z.literal(true), signal: z.enum(["SIGINT", "SIGTERM"]), message: text })
    .describe("pull, push or init stopped by a signal"),
};

/** The name of a --json document: mostly a command's (push prints pull's, resume pause's). */
export type CliDocumentKind = keyof typeof CLI_DOCUMENTS;

/** What a command may print as the document `K`. */
export type CliDocument<K extends CliDocumentKind> = z.output<(typeof CLI_DOCUMENTS)[K]>;

/** What `mpsync prompt` did. */
export type PromptResult = CliDocument<"prompt">;

/** `$id` of the published schema: the file inside the npm package. */
export const JSON_OUTPUT_SCHEMA_ID = "https://unpkg.com/mpsync/json-output.schema.json";

/**
 * The JSON Schema (draft-07) of everything --json prints: one definition per document kind
 * (`#/definitions/status`, `#/definitions/event`...), and the file as a whole accepts any of them.
 */
export function buildJsonOutputSchema(): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  for (const [kind, schema] of Object.entries(CLI_DOCUMENTS)) {
    const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: "draft-07", io: "output" }) as Record<string, unknown>;
    definitions[kind] = rest;
  }
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: JSON_OUTPUT_SCHEMA_ID,
    title: "mpsync --json output",
    description:
      "What mpsync prints on stdout with --json: one document per command (definitions named after the command; push prints pull's, resume pause's), JSON Lines of `event` for watch and dev, `error` for any failed command.",
    definitions,
    anyOf: Object.keys(definitions).map((kind) => ({ $ref: `#/definitions/${kind}` })),
  };
}
