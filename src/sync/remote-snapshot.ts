/**
 * Reads the remote side of a design for one cycle: the active artifact, its jailed file names
 * (hostile names refused and reported, never written), and the contents asked for.
 */
import type { V3Client } from "../api/client-types.js";
import { MAX_RESPONSE_BYTES } from "../api/http-transport.js";
import { checkRemoteName, findCaseTwins, folderPrefixes, foldName } from "../local/path-jail.js";

/** One refused remote name and why. */
export interface RefusedName {
  name: string;
  reason: string;
}

/** The remote side as read for one cycle. */
export interface RemoteSnapshot {
  artifactId: string;
  /** Every name the artifact lists, as the service sent it (refused ones included). */
  listed: string[];
  /** Every allowed (jailed) name in the active artifact. */
  names: Set<string>;
  refused: RefusedName[];
  /** Contents of the names that were read (a name deleted between calls is simply absent). */
  texts: Map<string, string>;
}

/** Splits artifact names into allowed relative paths and refused ones. */
export function jailRemoteNames(files: readonly string[]): { allowed: string[]; refused: RefusedName[] } {
  const refused: RefusedName[] = [];
  const checked: string[] = [];
  for (const name of files) {
    const verdict = checkRemoteName(name);
    if (verdict.ok) checked.push(verdict.path);
    else refused.push({ name, reason: verdict.reason });
  }
  const twins = new Set(findCaseTwins(checked).flat());
  for (const name of twins) refused.push({ name, reason: "differs from another file name only by case or Unicode form" });
  const clashes = findFileFolderClashes(checked.filter((n) => !twins.has(n)));
  for (const name of clashes) refused.push({ name, reason: "is both a file and the folder of another file" });
  return { allowed: checked.filter((n) => !twins.has(n) && !clashes.has(n)), refused };
}

/** Names that are a file and also a folder of another name (`a` and `a/b`): no disk holds both. */
export function findFileFolderClashes(names: readonly string[]): Set<string> {
  const byFolded = new Map(names.map((n) => [foldName(n), n]));
  const clashes = new Set<string>();
  for (const name of names) {
    for (const prefix of folderPrefixes(name)) {
      const folder = byFolded.get(foldName(prefix));
      if (folder !== undefined) {
        clashes.add(folder);
        clashes.add(name);
      }
    }
  }
  return clashes;
}

/** Why a remote file was not read (an answer holding it alone was refused or too large). */
export const TOO_LARGE_TO_READ = `too large to read (413, or an answer past the ${MAX_RESPONSE_BYTES / 2 ** 20} MiB size cap): not synced`;

/** What a cycle already knows of the remote side, so its reads need not wait on each other. */
export interface RemoteHint {
  /**
   * The artifact the last cycle saw: with `want` names, their texts are read from it beside the
   * active-artifact call (one round trip instead of two); used only if it is still the active one.
   */
  artifactId?: string | undefined;
  /** The active artifact and its names as a status answer gave them: no active-artifact call. */
  active?: { artifactId: string; files: string[] } | undefined;
}

type FileRead = { name: string; content: string }[];

/**
 * Reads the active artifact and the contents of `want(names)` (all names when omitted). With
 * a `hint`, the reads go out together (see RemoteHint); the answer is the same.
 */
export async function readRemoteSnapshot(
  client: V3Client,
  editorId: string,
  want?: (names: ReadonlySet<string>) => string[],
  hint: RemoteHint = {},
): Promise<RemoteSnapshot> {
  const refused: RefusedName[] = [];
  // A file too large to read is not synced this cycle, and said so: left out of `names`, it
  // is neither pulled nor taken for a remote deletion (buildTriples skips refused names).
  const tooLarge = new Set<string>();
  const onTooLarge = (name: string): void => void tooLarge.add(name);
  // The early read asks `want` before any listing (a push pass wants the paths it changed).
  const first = hint.artifactId !== undefined && hint.active === undefined && want !== undefined ? want(new Set()) : [];
  const early = first.length > 0 ? client.readFiles(editorId, hint.artifactId!, first, { onTooLarge }).catch(() => undefined) : undefined;
  const artifact = hint.active ?? (await client.getActiveArtifact(editorId));
  const jailed = jailRemoteNames(artifact.files);
  refused.push(...jailed.refused);
  const names = new Set(jailed.allowed);
  const toRead = want === undefined ? jailed.allowed : want(names).filter((n) => names.has(n));
  const texts = new Map<string, string>();
  let files: FileRead | undefined = early === undefined ? undefined : await early;
  if (files === undefined || artifact.artifactId !== hint.artifactId) {
    tooLarge.clear();
    files = toRead.length > 0 ? await client.readFiles(editorId, artifact.artifactId, toRead, { onTooLarge }) : [];
  }
  for (const name of tooLarge) {
    if (!names.delete(name)) continue;
    refused.push({ name, reason: TOO_LARGE_TO_READ });
  }
  const wanted = new Set(toRead);
  for (const file of files) if (names.has(file.name) && wanted.has(file.name)) texts.set(file.name, file.content);
  return { artifactId: artifact.artifactId, listed: artifact.files, names, refused, texts };
}
