/**
 * The path jail: remote file names come from a service (and from whatever generated them), so
 * each one is checked before it may become a local path. Pure string checks, no file system.
 */
import { sep as osSep } from "node:path";

/** Longest accepted name, in UTF-8 bytes (common PATH_MAX headroom). */
export const MAX_NAME_BYTES = 1024;
/** Longest accepted segment, in UTF-8 bytes (NAME_MAX on ext4, APFS, NTFS). */
export const MAX_SEGMENT_BYTES = 255;

/** Verdict on one remote name. */
export type RemoteNameCheck = { ok: true; path: string } | { ok: false; reason: string };

// C0 controls, DEL and C1 controls: matching control characters is the point here.
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;
// A lone surrogate cannot be written as UTF-8: the file would get a different name.
const LONE_SURROGATE_RE = /\p{Cs}/u;
const DRIVE_RE = /^[a-zA-Z]:/;
// Characters HFS+ ignores in names, and bidi controls: `.g\u200cit` is `.git` there.
const IGNORABLE_RE = /[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]/g;
// Windows drops trailing dots and spaces; `GIT~1` is the 8.3 short name of `.git`.
const RESERVED_DIRS = new Set([".git", ".mpsync", "git~1", "mpsync~1"]);
// Percent-encoding may be nested (`%252e`): decode a few rounds, more is not plausible.
const MAX_DECODE_ROUNDS = 4;
/**
 * A name no rule below can refuse: ASCII letters, digits, `_`, `-` and `.`, no segment empty,
 * starting with a dot or longer than MAX_SEGMENT_BYTES (so no control character, surrogate,
 * backslash, drive, non-NFC form, `%`, dot-only or reserved segment, `.syncignore`). Most
 * names of a design are such, and are passed without the full check, which is a visible part of a
 * large design's start-up. The whole name's length is checked beside it.
 */
const PLAIN_NAME_RE = /^[\w-][\w.-]{0,254}(?:\/[\w-][\w.-]{0,254})*$/;
// eslint-disable-next-line no-control-regex -- ASCII is the whole range from U+0000.
const ASCII_RE = /^[\x00-\x7f]*$/;

/** Checks one remote file name; accepted names are relative `/` paths that stay in the folder. */
export function checkRemoteName(name: string): RemoteNameCheck {
  const reason = refusalReason(name);
  return reason === undefined ? { ok: true, path: name } : { ok: false, reason };
}

function refusalReason(name: string): string | undefined {
  if (name.length <= MAX_NAME_BYTES && PLAIN_NAME_RE.test(name)) return undefined;
  return fullRefusalReason(name);
}

/** refusalReason without the plain-name shortcut (exported for the test that the shortcut agrees). */
export function fullRefusalReason(name: string): string | undefined {
  if (name === "") return "empty name";
  if (CONTROL_RE.test(name)) return "contains NUL or a control character";
  if (LONE_SURROGATE_RE.test(name)) return "contains an unpaired surrogate (not valid Unicode)";
  if (name.includes("\\")) return "contains a backslash";
  if (name.startsWith("/") || DRIVE_RE.test(name)) return "absolute path";
  if (name.normalize("NFC") !== name) return "not in Unicode normalization form C";
  if (byteLength(name) > MAX_NAME_BYTES) return `longer than ${MAX_NAME_BYTES} bytes`;
  if (name.endsWith("/")) return "ends with a slash";
  // The folder's own ignore file belongs to the user: a remote one could switch sync off.
  if (name.toLowerCase() === ".syncignore") return "is the folder's own .syncignore (never synced: the service must not change what is synced)";
  for (const segment of name.split("/")) {
    const refusal = segmentRefusal(segment);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

function segmentRefusal(segment: string): string | undefined {
  if (segment === "" || segment === ".") return "empty or '.' path segment";
  if (segment === "..") return "'..' path segment";
  // Windows drops trailing dots and spaces, so `.. ` or `...` would open as `..` or `.` there.
  if (foldReserved(segment) === "") return "'..' path segment (only dots and spaces)";
  if (byteLength(segment) > MAX_SEGMENT_BYTES) return `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`;
  for (const form of decodedForms(segment)) {
    // A decoded form may itself hold separators (`..%2f`): judge each piece.
    for (const piece of form.split(/[/\\]/)) {
      if (piece === "." || piece === ".." || (piece !== "" && foldReserved(piece) === "")) {
        return "percent-encoded '.' or '..' segment";
      }
      if (RESERVED_DIRS.has(foldReserved(piece))) return `lands in a reserved folder (${piece})`;
    }
  }
  return undefined;
}

/** The segment as written, then each successive percent-decoding of it. */
function decodedForms(segment: string): string[] {
  const forms = [segment];
  let current = segment;
  for (let round = 0; round < MAX_DECODE_ROUNDS && current.includes("%"); round += 1) {
    const next = current.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) break;
    forms.push(next);
    current = next;
  }
  return forms;
}

function foldReserved(piece: string): string {
  return piece
    .replace(IGNORABLE_RE, "")
    .replace(/[. ]+$/, "")
    .toLowerCase();
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Key under which two names collide on a case-insensitive, normalization-insensitive disk. */
export function foldName(name: string): string {
  // ASCII is its own NFC form.
  return (ASCII_RE.test(name) ? name : name.normalize("NFC")).toLowerCase();
}

/**
 * Groups of names that would collide on a case-insensitive file system (equal after NFC and
 * lower-casing), including names whose folders collide (`A/x` and `a/y` share one folder
 * there, so `a/y` would come back as `A/y`). Each group is sorted; groups are in input order.
 */
export function findCaseTwins(names: readonly string[]): string[][] {
  if (!anyPrefixFoldsAlike(names)) return [];
  const unique = [...new Set(names)];
  const parent = unique.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] ?? i;
    return i;
  };
  // Folded key of every prefix (folders and the full name) -> exact spellings -> owners.
  const byKey = new Map<string, Map<string, number[]>>();
  unique.forEach((name, index) => {
    // Every prefix ends at a "/" or at the end of the name (no per-prefix split and join).
    for (let end = name.indexOf("/"); ; end = name.indexOf("/", end + 1)) {
      const exact = end === -1 ? name : name.slice(0, end);
      const key = foldName(exact);
      let spellings = byKey.get(key);
      if (spellings === undefined) byKey.set(key, (spellings = new Map()));
      const owners = spellings.get(exact);
      if (owners === undefined) spellings.set(exact, [index]);
      else owners.push(index);
      if (end === -1) break;
    }
  });
  for (const spellings of byKey.values()) {
    if (spellings.size < 2) continue;
    const owners = [...spellings.values()].flat();
    for (const owner of owners) parent[find(owner)] = find(owners[0] ?? owner);
  }
  const groups = new Map<number, string[]>();
  unique.forEach((name, index) => {
    const root = find(index);
    groups.set(root, [...(groups.get(root) ?? []), name]);
  });
  return [...groups.values()].filter((g) => g.length > 1).map((g) => g.sort());
}

/**
 * Whether two different spellings of a prefix (a folder or a whole name) fold alike: the rare
 * case findCaseTwins groups. One map of strings answers it for the usual design without the
 * grouping's map per prefix, which a large design's start-up would pay.
 */
function anyPrefixFoldsAlike(names: readonly string[]): boolean {
  const spelling = new Map<string, string>();
  for (const name of names) {
    for (const exact of [...folderPrefixes(name), name]) {
      const key = foldName(exact);
      const seen = spelling.get(key);
      if (seen === undefined) spelling.set(key, exact);
      else if (seen !== exact) return true;
    }
  }
  return false;
}

/** Why the service would refuse a new local name, and what to do; undefined when it would not. */
export type LocalNameRefusal = { reason: string; fix: string } | undefined;

/**
 * Why a NEW local name must not be pushed, or undefined when it may be: the rules that jail
 * remote names, applied before a PATCH, because the service can neither delete nor rename a
 * file. A name it would hold beside an existing one (a case twin, a file where a folder is)
 * would be refused on every later read, and the edits under it would never leave again.
 * Returns the reason and what the user can do. A cycle judging many names uses localNameJudge.
 */
export function localNameRefusal(name: string, remoteNames: Iterable<string>): LocalNameRefusal {
  return localNameJudge(remoteNames)(name);
}

/**
 * localNameRefusal with the remote names indexed once (every prefix of every name, folded):
 * a cycle with thousands of new files in a design of thousands of names judges each in a few
 * map lookups, where a scan of every remote name per file grows with their product.
 */
export function localNameJudge(remoteNames: Iterable<string>): (name: string) => LocalNameRefusal {
  const exact = new Set<string>();
  /** Exact folder prefix -> a remote name under it. */
  const folders = new Map<string, string>();
  /** Folded prefix (folder or whole name) -> exact spelling -> a remote name it belongs to. */
  const byFold = new Map<string, Map<string, string>>();
  for (const remote of remoteNames) {
    exact.add(remote);
    const remoteFolders = folderPrefixes(remote);
    for (const folder of remoteFolders) if (!folders.has(folder)) folders.set(folder, remote);
    for (const prefix of [...remoteFolders, remote]) {
      const key = foldName(prefix);
      let spellings = byFold.get(key);
      if (spellings === undefined) byFold.set(key, (spellings = new Map()));
      if (!spellings.has(prefix)) spellings.set(prefix, remote);
    }
  }
  return (name) => {
    const jailed = refusalReason(name);
    if (jailed !== undefined) return { reason: jailed, fix: "rename it locally" };
    if (exact.has(name)) return undefined;
    for (const [spelling, remote] of byFold.get(foldName(name)) ?? []) {
      if (spelling === remote && spelling !== name) {
        return {
          reason: `differs only by case or Unicode form from ${JSON.stringify(remote)} on the service`,
          fix: `rename it back to ${remote}, or rename it in the web editor`,
        };
      }
    }
    const under = folders.get(name);
    if (under !== undefined) return { reason: `is a folder on the service (it holds ${JSON.stringify(under)})`, fix: "rename it locally" };
    const nameFolders = folderPrefixes(name);
    const fileAbove = nameFolders.find((folder) => exact.has(folder));
    if (fileAbove !== undefined)
      return {
        reason: `lies under ${JSON.stringify(fileAbove)}, which is a file on the service`,
        fix: `rename the folder locally, or rename ${fileAbove} in the web editor`,
      };
    // Any prefix (a folder, or the whole name) spelled differently from a remote prefix that
    // folds the same: the two would share one folder on a case-insensitive disk.
    for (const prefix of [...nameFolders, name]) {
      for (const [spelling, remote] of byFold.get(foldName(prefix)) ?? []) {
        if (spelling !== prefix)
          return {
            reason: `its folder differs only by case from the one holding ${JSON.stringify(remote)} on the service`,
            fix: "rename the folder to match the service",
          };
      }
    }
    return undefined;
  };
}

/** The folders of a `/`-separated name, outermost first: `a/b/c.ts` -> `a`, `a/b`. */
export function folderPrefixes(name: string): string[] {
  const out: string[] = [];
  for (let end = name.indexOf("/"); end !== -1; end = name.indexOf("/", end + 1)) out.push(name.slice(0, end));
  return out;
}

/** Converts a relative OS path (from a scan) to the `/`-separated NFC form the service uses. */
export function toRemoteName(localRelativePath: string, separator: string = osSep): string {
  // macOS file systems may hand back NFD names; the service and the jail expect NFC.
  const parts = localRelativePath.split(separator).filter((part, i) => !(i === 0 && part === "."));
  return parts.join("/").normalize("NFC");
}
