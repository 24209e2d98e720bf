/**
 * The (base, local, remote) triple of every path a cycle judges, from values the cycle observed
 * and the ledger's pure reading of each path. Writes nothing: what it finds (the ledger's
 * reading, local-name verdicts, notices) comes back as data for the cycle to apply.
 */
import { hashContent } from "../core/hash.js";
import type { BaseLedger } from "./base-ledger.js";
import { addReading, emptyReading, type LedgerReading } from "./ledger-reading.js";
import { judgeLocalName } from "./local-refusals.js";
import type { FileTriple, LocalFile } from "./model.js";
import type { LocalNameRefusal } from "../local/path-jail.js";
import type { RemoteSnapshot } from "./remote-snapshot.js";

/** What buildTriples asks of the cycle. */
export interface TriplesContext {
  ledger: Pick<BaseLedger, "read">;
  /** Ignored by .syncrc or built in. */
  ignores(path: string): boolean;
  /** The reason recorded for refusing the local name `path`, if any (FolderStatus). */
  refusedLocalOf(path: string): string | undefined;
  /** Judges a new local name against the remote listing (path-jail.ts localNameJudge). */
  judgeName(remote: RemoteSnapshot): (name: string) => LocalNameRefusal;
}

/** What buildTriples found, as data the cycle applies. */
export interface Triples {
  /** The (base, local, remote) triple of every path reconcile judges. */
  files: FileTriple[];
  /** What the ledger's journals and landed pushes said (the ledger's commit takes it: ledger-next.ts). */
  reading: LedgerReading;
  /** Local names judged (path -> reason refused, undefined: not refused): FolderStatus.noteLocalNames. */
  localNames: Map<string, string | undefined>;
  /** Notices to give, in order (a local name refused for the first time). */
  notices: string[];
}

/** The (base, local, remote) triple of every path of the cycle, bases from the ledger. Writes nothing. */
export function buildTriples(
  paths: Set<string>,
  localOf: (p: string) => LocalFile | undefined,
  remote: RemoteSnapshot,
  readAt: number,
  ctx: TriplesContext,
): Triples {
  const out: Triples = { files: [], reading: emptyReading(), localNames: new Map(), notices: [] };
  // A refused remote name (hostile, or a case twin of a synced file) was not read: it must
  // not look "absent remotely", which would remove or blindly overwrite the local file.
  const refused = new Set(remote.refused.map((r) => r.name));
  // The remote names are indexed once per cycle, and only when a new local name needs judging.
  let judge: ((name: string) => LocalNameRefusal) | undefined;
  for (const path of [...paths].sort()) {
    if (ctx.ignores(path) || refused.has(path)) continue;
    const text = remote.texts.get(path);
    // Listed but not returned by files/read (deleted meanwhile, or a service hiccup): its
    // remote side is unknown this cycle, which is not the same as "removed".
    if (text === undefined && remote.names.has(path)) continue;
    const local = localOf(path);
    const remoteHash = text === undefined ? undefined : hashContent(text);
    const reading = ctx.ledger.read(path, local?.hash, remoteHash, remote.artifactId, readAt);
    addReading(out.reading, path, reading);
    const { base } = reading;
    // A new local name the service's name rules would refuse is never pushed (local-refusals.ts).
    const known = ctx.refusedLocalOf(path);
    const isNewLocal = local !== undefined && text === undefined && base === undefined;
    const verdict = isNewLocal || known !== undefined ? judgeLocalName(known, path, isNewLocal, (name) => (judge ??= ctx.judgeName(remote))(name)) : undefined;
    if (verdict !== undefined) {
      if (verdict.reason !== known) out.localNames.set(path, verdict.reason);
      if (verdict.notice !== undefined) out.notices.push(verdict.notice);
      if (verdict.skip) continue;
    }
    out.files.push({ path, base, local, remote: remoteHash === undefined ? undefined : { hash: remoteHash } });
  }
  return out;
}
