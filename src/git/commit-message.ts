/** Commit messages and dates for versions recorded in git (commit on pull, history export). */
import type { Version } from "../api/schemas.js";

/** The fields of a version a commit needs. */
export type VersionInfo = Pick<Version, "versionLabel" | "title" | "timeCreated">;

/** Longest subject line kept; the full title goes in the body when it is longer. */
export const MAX_SUBJECT_CHARS = 120;

/**
 * Trailer key naming the artifact of a commit (commit on pull and history export alike). Both
 * keys are git trailers in git's own spelling (`Signed-off-by`), so `git interpret-trailers` and
 * `git log --format=%(trailers:key=Artifact-Id)` read them, and one reader serves both kinds.
 */
export const ARTIFACT_TRAILER = "Artifact-Id";

/** Trailer key naming the design of a commit. */
export const EDITOR_TRAILER = "Editor-Id";

/** `design: v3 Make the header sticky` (or `design: artifact <id>` when the version is unknown). */
export function versionSubject(version: VersionInfo | undefined, artifactId: string): string {
  if (version === undefined) return `design: artifact ${artifactId}`;
  const title = oneLine(version.title);
  const subject = title === "" ? `design: ${version.versionLabel}` : `design: ${version.versionLabel} ${title}`;
  return subject.length > MAX_SUBJECT_CHARS ? `${subject.slice(0, MAX_SUBJECT_CHARS - 1)}…` : subject;
}

/** Message of a commit made on pull: subject, blank line, the `Editor-Id` and `Artifact-Id` trailers. */
export function pullCommitMessage(version: VersionInfo | undefined, editorId: string, artifactId: string): string {
  return `${versionSubject(version, artifactId)}\n\n${longTitle(version)}${trailers(editorId, artifactId)}`;
}

/** Message of a history-export commit; the `Artifact-Id` trailer is what makes re-runs incremental. */
export function historyCommitMessage(version: VersionInfo, editorId: string, artifactId: string): string {
  return `${versionSubject(version, artifactId)}\n\n${longTitle(version)}${trailers(editorId, artifactId)}`;
}

function trailers(editorId: string, artifactId: string): string {
  return `${EDITOR_TRAILER}: ${editorId}\n${ARTIFACT_TRAILER}: ${artifactId}\n`;
}

/** The artifactId recorded in a commit message's trailer, if any (the last one wins, as in git). */
export function artifactIdOf(message: string): string | undefined {
  const re = new RegExp(`^${ARTIFACT_TRAILER}:[ \\t]*(\\S+)[ \\t]*$`, "gim");
  let found: string | undefined;
  for (const m of message.matchAll(re)) found = m[1];
  return found;
}

/**
 * Env for GIT_AUTHOR_DATE / GIT_COMMITTER_DATE: `@<seconds> +0000`. The service's unit is not
 * documented (README, "What is known about the real service"): below 1e11 a value cannot be a millisecond date after 1973, so
 * it is taken as seconds, as `mpsync versions` does.
 */
export function gitDate(timeCreated: number): string {
  const ms = timeCreated < 1e11 ? timeCreated * 1000 : timeCreated;
  return `@${Math.floor(ms / 1000)} +0000`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The title in full when the subject had to shorten or flatten it, else nothing. */
function longTitle(version: VersionInfo | undefined): string {
  if (version === undefined) return "";
  const flat = oneLine(version.title);
  const shortened = `design: ${version.versionLabel} ${flat}`.length > MAX_SUBJECT_CHARS;
  return shortened || flat !== version.title.trim() ? `${version.title.trim()}\n\n` : "";
}
