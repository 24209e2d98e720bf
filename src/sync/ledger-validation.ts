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

/** The first violation of the ledger's invariants, as `field: what is wrong`; undefined when valid. */
export function ledgerViolation(data: DeepReadonly<LedgerData>): string | undefined {
  for (const problem of problems(data)) if (problem !== undefined) return problem;
  return undefined;
}

function* problems(data: DeepReadonly<LedgerData>): Generator<string | undefined> {
  for (const [path, f] of Object.entries(data.files)) {
    yield pathProblem("files", path);
    yield hashProblem(f.hash, field("files", path, "hash"));
  }
  for (const [path, hash] of Object.entries(data.pending ?? {})) {
    yield pathProblem("pending", path);
    yield hashProblem(hash, field("pending", path));
  }
  for (const [path, p] of Object.entries(data.pendingPush ?? {})) {
    yield pathProblem("pendingPush", path);
    yield hashProblem(p.hash, field("pendingPush", path, "hash"));
    yield previousProblem(p.previous, field("pendingPush", path, "previous"));
  }
  for (const [path, l] of Object.entries(data.landed ?? {})) {
    yield pathProblem("landed", path);
    yield hashProblem(l.hash, field("landed", path, "hash"));
    yield previousProblem(l.previous, field("landed", path, "previous"));
    if (typeof l.artifactId !== "string" || l.artifactId === "") yield `${field("landed", path, "artifactId")}: not an artifact id`;
    if (l.at !== undefined && !Number.isFinite(l.at)) yield `${field("landed", path, "at")}: not a time`;
    if (l.settled !== undefined && l.settled !== true) yield `${field("landed", path, "settled")}: neither true nor absent`;
    if (data.files[path]?.hash !== l.hash) yield `${field("landed", path, "hash")}: not the base of the path (a landed push lives only while the base is what it sent)`;
  }
}

/** `landed["a.ts"].previous`. */
function field(table: string, path: string, name?: string): string {
  return `${table}[${JSON.stringify(path)}]${name === undefined ? "" : `.${name}`}`;
}

/** Throws INTERNAL naming the first violation (ledgerViolation). */
export function ensureValidLedger(data: DeepReadonly<LedgerData>): void {
  const why = ledgerViolation(data);
  if (why !== undefined) throw new MpsyncError("INTERNAL", `the base ledger is invalid, so state.json was not written: ${why}`);
}

/** Why `path`, a key of `table`, is not a relative `/` path inside the folder. */
function pathProblem(table: string, path: string): string | undefined {
  const why =
    path === "" ? "empty" : path.startsWith("/") ? "absolute" : path.includes("\0") ? "NUL in it" : path.split("/").some((s) => s === "" || s === "." || s === "..") ? "an empty, . or .. segment" : undefined;
  return why === undefined ? undefined : `${field(table, path)}: not a relative path inside the folder (${why})`;
}

function hashProblem(hash: unknown, field: string): string | undefined {
  return typeof hash === "string" && HASH_RE.test(hash) ? undefined : `${field}: not a sha256 hash`;
}

function previousProblem(previous: unknown, field: string): string | undefined {
  return previous === null ? undefined : hashProblem(previous, field) === undefined ? undefined : `${field}: neither null nor a sha256 hash`;
}
