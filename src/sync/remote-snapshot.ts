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

/** Reads the active artifact and the contents of `want(names)` (all names when omitted). */
export async function readRemoteSnapshot(
  client: V3Client,
  editorId: string,
  want?: (names: ReadonlySet<string>) => string[],
): Promise<RemoteSnapshot> {
  const artifact = await client.getActiveArtifact(editorId);
  const { allowed, refused } = jailRemoteNames(artifact.files);
  const names = new Set(allowed);
  const toRead = want === undefined ? allowed : want(names).filter((n) => names.has(n));
  const texts = new Map<string, string>();
  if (toRead.length > 0) {
    // A file too large to read is not synced this cycle, and said so: left out of `names`, it
    // is neither pulled nor taken for a remote deletion (buildTriples skips refused names).
    const onTooLarge = (name: string): void => {
      names.delete(name);
      refused.push({ name, reason: TOO_LARGE_TO_READ });
    };
    for (const file of await client.readFiles(editorId, artifact.artifactId, toRead, { onTooLarge })) {
      if (names.has(file.name)) texts.set(file.name, file.content);
    }
  }
  return { artifactId: artifact.artifactId, listed: artifact.files, names, refused, texts };
}
