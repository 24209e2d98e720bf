/**
 * The zod schema of `.syncrc` (README, "Configuration"): the one source of truth for validation,
 * defaults, the shipped JSON Schema (`syncrc.schema.json`) and the documented example.
 * Every object is strict so a misspelt key is an error, not a silently ignored setting.
 */
import { posix, win32 } from "node:path";
import * as z from "zod";
import { MIN_LOOPBACK_POLL_INTERVAL_SEC } from "./poll-floor.js";

/** The service address used when neither `.syncrc` nor `MPSYNC_BASE_URL` names one. */
export const DEFAULT_BASE_URL = "https://api.magicpatterns.com/api";

/** Conflict policies (README, "How sync works"). */
export const ON_CONFLICT_MODES = ["merge", "keep-local", "keep-remote"] as const;

/** pino levels plus `silent`. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** The message for an `apiKey` key anywhere in `.syncrc`: keys must never sit in a file that gets committed. */
export const API_KEY_IN_SYNCRC_MESSAGE = 'apiKey does not belong in .syncrc: set MP_API_KEY or run "mpsync login"';

/**
 * Longest accepted poll interval: one day. Timers past 2^31-1 ms (about 24.8 days) fire at
 * once in Node, so an unbounded value would turn into a poll storm.
 */
export const MAX_POLL_INTERVAL_SEC = 86_400;

/** Quiet time after the last local change before its batch is pushed, when `debounceMs` is not set. */
export const DEFAULT_DEBOUNCE_MS = 150;

/** Days backups are kept when `keepBackupsDays` is not set (Dropbox keeps deleted files 30 days too). */
export const DEFAULT_KEEP_BACKUPS_DAYS = 30;
/** Longest accepted `keepBackupsDays` (ten years); 0 already means forever. */
export const MAX_KEEP_BACKUPS_DAYS = 3650;

/** Expectation phrases of refinements, shared by the schema and the issue formatter. */
const EXPECT_HTTP_URL = "an http:// or https:// URL";
const EXPECT_DESIGN_REF = "an editorId (letters, digits, - and _) or an http(s) design URL";
const EXPECT_RELATIVE_DIR = "a folder path relative to the config file";

// JSON Schema patterns have no flags: spell out case-insensitivity.
const HTTP_PREFIX = /^[Hh][Tt][Tt][Pp][Ss]?:\/\//;
const HTTP_URL_PATTERN = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/.+/;
const DESIGN_REF_PATTERN = /^(?:[A-Za-z0-9_-]+|[Hh][Tt][Tt][Pp][Ss]?:\/\/.+)$/;

/** True for an absolute `http:` or `https:` URL. */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
}

/** True for a non-empty folder path that is relative on every platform and has no NUL. */
export function isRelativeDir(value: string): boolean {
  // win32 too: a config written on Windows must not map `C:\\x` as a relative folder on Linux.
  return value.length > 0 && !value.includes("\0") && !posix.isAbsolute(value) && !win32.isAbsolute(value);
}

/** Normal form of a mapped folder for comparisons: `./web/` and `web` are the same folder. */
export function normalizeDir(dir: string): string {
  const normal = posix.normalize(dir.replaceAll("\\", "/"));
  return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
}

/** True when folders `a` and `b` (both relative to one folder) are the same or one holds the other. */
export function dirsOverlap(a: string, b: string): boolean {
  const root = "/__syncrc__";
  const [x, y] = [posix.resolve(root, normalizeDir(a)), posix.resolve(root, normalizeDir(b))];
  return x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
}

const designMappingSchema = z
  .strictObject({
    dir: z
      .string()
      .min(1)
      // No `abort` anywhere here: an aborted element would hide the duplicate check of the array.
      .refine((dir) => dir === "" || isRelativeDir(dir), EXPECT_RELATIVE_DIR)
      .describe("Local folder mirrored from the design, relative to the folder of this config file."),
    design: z
      .string()
      // No min(1): the pattern needs a character, and two messages for one "" would be noise.
      // The pattern also lands in the JSON Schema for editors; the refinement checks what a
      // pattern cannot (that the URL parses) and stays quiet where the pattern already failed.
      .regex(DESIGN_REF_PATTERN, { error: EXPECT_DESIGN_REF })
      .refine((ref) => !HTTP_PREFIX.test(ref) || isHttpUrl(ref), EXPECT_DESIGN_REF)
      .describe("The design: its editorId, or any editor, published or canvas URL (resolved once with resolve-url and cached in state)."),
  })
  .describe("One design mirrored into one folder.");

const designsSchema = z
  .array(designMappingSchema)
  .min(1)
  .superRefine((designs, ctx) => {
    // Two mappings of one folder (or one inside another) would push each other's files.
    designs.forEach((mapping, i) => {
      const earlier = designs.findIndex((other, j) => j < i && dirsOverlap(other.dir, mapping.dir));
      if (earlier < 0) return;
      const other = designs[earlier]?.dir ?? "";
      const message =
        normalizeDir(other) === normalizeDir(mapping.dir)
          ? `${JSON.stringify(mapping.dir)} is already mapped by designs[${earlier}]: each folder holds one design`
          : `${JSON.stringify(mapping.dir)} overlaps ${JSON.stringify(other)} of designs[${earlier}]: mapped folders must not nest`;
      ctx.addIssue({ code: "custom", path: [i, "dir"], message, params: { verbatim: true } });
    });
  })
  .describe("The designs to mirror: at least one { dir, design } mapping, one design per folder.");

const gitSchema = z
  .strictObject({
    pauseDuringGitOps: z.boolean().default(true).describe("Hold pushes while .git/index.lock exists in the enclosing repository (checkout, rebase, merge)."),
    commitOnPull: z.boolean().default(false).describe("Commit each pulled remote version in the enclosing git repository."),
  })
  .default(() => ({ pauseDuringGitOps: true, commitOnPull: false }))
  .describe("Behaviour inside a git repository.");

/** The `.syncrc` schema: strict, with every default of README, "Configuration". */
export const syncrcSchema = z
  .strictObject({
    $schema: z.string().optional().describe("Path or URL of syncrc.schema.json, so editors validate and autocomplete this file. Ignored by mpsync."),
    baseUrl: z
      .string()
      .regex(HTTP_URL_PATTERN, { error: EXPECT_HTTP_URL })
      .refine((url) => !HTTP_URL_PATTERN.test(url) || isHttpUrl(url), EXPECT_HTTP_URL)
      .default(DEFAULT_BASE_URL)
      .describe("Service address with its API prefix. The environment variable MPSYNC_BASE_URL overrides it."),
    designs: designsSchema,
    pollIntervalSec: z
      .number()
      .min(MIN_LOOPBACK_POLL_INTERVAL_SEC)
      .max(MAX_POLL_INTERVAL_SEC)
      .default(60)
      .describe(
        "Seconds between status polls of one design. At least 60 for any non-loopback baseUrl; a loopback baseUrl (127.0.0.0/8, localhost, [::1]) accepts 0.05 and up.",
      ),
    remoteCheckSec: z
      .number()
      .min(MIN_LOOPBACK_POLL_INTERVAL_SEC)
      .max(MAX_POLL_INTERVAL_SEC)
      .default(60)
      .describe(
        "How often a running daemon reads remote file contents of an idle design, to find changes that move no version (an edit in the web editor's code view, a teammate's push): each check reads the files changed in the last hour and a tenth of the others, so every file is read at least every 10 checks. At least 10 for any non-loopback baseUrl; a loopback baseUrl accepts 0.05 and up.",
      ),
    debounceMs: z
      .int()
      .min(0)
      .max(60_000)
      .default(DEFAULT_DEBOUNCE_MS)
      .describe("Quiet time in milliseconds after the last local change before the batch is pushed."),
    ignore: z
      .array(z.string().min(1))
      .default(() => [])
      .describe(
        "gitignore-style patterns never synced, added to the built-in ones (.git/, node_modules/, .mpsync/, .DS_Store, editor swap and backup files, and secrets: .env, .env.*, *.pem, *.key, .npmrc, which a !pattern re-includes) and to a .syncignore file in the folder.",
      ),
    onConflict: z
      .enum(ON_CONFLICT_MODES)
      .default("merge")
      .describe(
        "When a file changed on both sides: merge (3-way merge, conflict markers on overlap), keep-local (push local, save the remote copy) or keep-remote (save the local copy, write the remote).",
      ),
    git: gitSchema,
    concurrency: z.int().min(1).max(32).default(4).describe("Requests in flight per API key."),
    publishOnPush: z
      .boolean()
      .default(false)
      .describe("After each push batch, publish the active artifact so the live preview follows local edits; a compile failure is shown and sync goes on."),
    keepBackupsDays: z
      .int()
      .min(0)
      .max(MAX_KEEP_BACKUPS_DAYS)
      .default(DEFAULT_KEEP_BACKUPS_DAYS)
      .describe(
        "Days a backup (what sync replaced or removed, in .mpsync/backups/) is kept: older backup folders are removed when watch starts, about once a day while it runs, and after pull, push and sync. 0 keeps them forever. Saved conflicts (.mpsync/conflicts/) are never removed.",
      ),
    logLevel: z.enum(LOG_LEVELS).default("info").describe("Log level (pino levels, or silent)."),
  })
  .describe("mpsync configuration: which designs to mirror into which folders, and how to sync them.");

/** `.syncrc` as written by a user (defaults not yet applied). */
export type SyncrcInput = z.input<typeof syncrcSchema>;
/** `.syncrc` after validation, defaults applied. */
export type Syncrc = z.output<typeof syncrcSchema>;
/** One `{ dir, design }` entry of `designs`. */
export type DesignMapping = Syncrc["designs"][number];
/** A conflict policy. */
export type OnConflict = (typeof ON_CONFLICT_MODES)[number];
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];
