/**
 * The base ledger's invariants, checked before state.json is written, as Mutagen's `EnsureValid`
 * checks an ancestor before saving it: a bug that builds a bad record fails loudly, as an
 * INTERNAL error naming the field, and state.json keeps the last good ledger. Structural only:
 * every key a relative `/` path inside the folder, every hash a sha256 hex, each journal and
 * landed record complete, and a landed record alive only while its path's base is what it sent.
 */
import { MpsyncError } from "../core/errors.js";
import type { DeepReadonly } from "../core/deep-readonly.js";
import type { LedgerData } from "./ports.js";

const HASH_RE = /^[0-9a-f]{64}$/;

/**
 * The first violation of the ledger's invariants, as `field: what is wrong`; undefined when
 * valid. `filesKnownGood`: `files` is the object an earlier check passed (the ledger replaces
 * it on each change, never edits it), so only the journals are checked: a journal save of a
 * 10,000-file folder stays cheap.
 */
export function ledgerViolation(data: DeepReadonly<LedgerData>, options: { filesKnownGood?: boolean } = {}): string | undefined {
  if (options.filesKnownGood !== true) {
    for (const path in data.files) {
      const why = pathProblem("files", path) ?? hashProblem(data.files[path]!.hash, field("files", path, "hash"));
      if (why !== undefined) return why;
    }
  }
  for (const [path, hash] of Object.entries(data.pending ?? {})) {
    const why = pathProblem("pending", path) ?? hashProblem(hash, field("pending", path));
    if (why !== undefined) return why;
  }
  for (const [path, p] of Object.entries(data.pendingPush ?? {})) {
    const why =
      pathProblem("pendingPush", path) ??
      hashProblem(p.hash, field("pendingPush", path, "hash")) ??
      previousProblem(p.previous, field("pendingPush", path, "previous")) ??
      basisProblem(p.basis, field("pendingPush", path, "basis"));
    if (why !== undefined) return why;
  }
  for (const [path, l] of Object.entries(data.landed ?? {})) {
    const why = pathProblem("landed", path) ?? landedProblem(l, field("landed", path), data.files[path]?.hash);
    if (why !== undefined) return why;
  }
  return undefined;
}

/** What is wrong with one landed record (`at`: its field name), given its path's base. */
function landedProblem(l: DeepReadonly<NonNullable<LedgerData["landed"]>[string]>, at: string, base: string | undefined): string | undefined {
  return (
    hashProblem(l.hash, `${at}.hash`) ??
    previousProblem(l.previous, `${at}.previous`) ??
    basisProblem(l.basis, `${at}.basis`) ??
    (typeof l.artifactId === "string" && l.artifactId !== "" ? undefined : `${at}.artifactId: not an artifact id`) ??
    (l.at === undefined || Number.isFinite(l.at) ? undefined : `${at}.at: not a time`) ??
    (l.settled === undefined || l.settled === true ? undefined : `${at}.settled: neither true nor absent`) ??
    (base === l.hash ? undefined : `${at}.hash: not the base of the path (a landed push lives only while the base is what it sent)`)
  );
}

/** An optional `basis`: absent, or a sha256 hash. */
function basisProblem(basis: unknown, at: string): string | undefined {
  return basis === undefined ? undefined : hashProblem(basis, at);
}

/** `landed["a.ts"].previous`. */
function field(table: string, path: string, name?: string): string {
  return `${table}[${JSON.stringify(path)}]${name === undefined ? "" : `.${name}`}`;
}

/** Throws INTERNAL naming the first violation (ledgerViolation). */
export function ensureValidLedger(data: DeepReadonly<LedgerData>, options: { filesKnownGood?: boolean } = {}): void {
  const why = ledgerViolation(data, options);
  if (why !== undefined) throw new MpsyncError("INTERNAL", `the base ledger is invalid, so state.json was not written: ${why}`);
}

/** A relative `/` path inside the folder: no empty, `.` or `..` segment, no NUL, not absolute. */
const RELATIVE_PATH_RE = /^(?!\.\.?(?:\/|$))[^/\0]+(?:\/(?!\.\.?(?:\/|$))[^/\0]+)*$/;

/** Why `path`, a key of `table`, is not a relative `/` path inside the folder. */
function pathProblem(table: string, path: string): string | undefined {
  if (RELATIVE_PATH_RE.test(path)) return undefined;
  const why = path === "" ? "empty" : path.startsWith("/") ? "absolute" : path.includes("\0") ? "NUL in it" : "an empty, . or .. segment";
  return `${field(table, path)}: not a relative path inside the folder (${why})`;
}

function hashProblem(hash: unknown, field: string): string | undefined {
  return typeof hash === "string" && HASH_RE.test(hash) ? undefined : `${field}: not a sha256 hash`;
}

function previousProblem(previous: unknown, field: string): string | undefined {
  return previous === null ? undefined : hashProblem(previous, field) === undefined ? undefined : `${field}: neither null nor a sha256 hash`;
}
