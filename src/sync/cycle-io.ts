/**
 * The reads and stores a cycle makes around its plan (cycle.ts): the journal entries of its
 * pulls and of its PATCH (BaseLedger intents, their texts stored first), the texts the plan
 * pushes or merges, and the label of the remote side in conflict markers.
 */
import type { V3Client } from "../api/client-types.js";
import { hashContent } from "../core/hash.js";
import type { BaseLedger } from "./base-ledger.js";
import type { SyncPlan } from "./model.js";
import { mapBounded } from "../local/bounded.js";
import { LOCAL_READ_CONCURRENCY, type ReadText } from "./observe-cycle.js";
import type { DesignStore, LocalTree } from "./ports.js";
import type { RemoteSnapshot } from "./remote-snapshot.js";

/**
 * Journals the texts a push pass may send (its second read), before its remote read: stored as
 * base texts, then named in the PATCH journal (BaseLedger.journalPush), so the read its decision
 * rests on and the PATCH have no disk write between them.
 */
export async function journalPushTexts(store: DesignStore, ledger: BaseLedger, texts: ReadonlyMap<string, ReadText>): Promise<void> {
  await store.putBases([...texts.values()].map((r) => r.text));
  await ledger.journalPush(new Map([...texts].map(([path, r]) => [path, r.hash])));
}

/** The journal entries of a PATCH: what it sends, and what the service held when this cycle read it. */
export async function pushIntents(
  store: DesignStore,
  files: readonly { fileName: string; code: string }[],
  remote: RemoteSnapshot,
): Promise<{ path: string; hash: string; previous: string | null }[]> {
  const hashes = await store.putBases(files.map((f) => f.code));
  return files.map((f, i) => {
    const before = remote.texts.get(f.fileName);
    return { path: f.fileName, hash: hashes[i]!, previous: before === undefined ? null : hashContent(before) };
  });
}

/** The remote contents the plan is about to write (path -> stored base hash), stored in one go. */
export async function pullIntents(store: DesignStore, plan: SyncPlan, remote: RemoteSnapshot): Promise<Map<string, string>> {
  const paths: string[] = [];
  const texts: string[] = [];
  for (const a of plan.actions) {
    const text = a.kind === "pull" ? remote.texts.get(a.path) : undefined;
    if (text === undefined) continue;
    paths.push(a.path);
    texts.push(text);
  }
  const hashes = await store.putBases(texts);
  return new Map(paths.map((p, i) => [p, hashes[i]!]));
}

/**
 * Texts of the files the plan pushes or merges; a file changed since the scan is skipped.
 * `preread`: texts a push pass read (and journalled) before its remote read, used as they are.
 */
export async function readLocalTexts(local: LocalTree, plan: SyncPlan, preread?: ReadonlyMap<string, ReadText>): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  const wanted = plan.actions.flatMap((a) => {
    const expect = a.kind === "push" ? a.expectLocal : a.kind === "conflict" ? a.localHash : a.kind === "record-base" ? a.hash : undefined;
    const early = preread?.get(a.path);
    if (expect !== undefined && early?.hash === expect) {
      texts.set(a.path, early.text);
      return [];
    }
    return expect === undefined ? [] : [{ path: a.path, expect }];
  });
  const reads = await mapBounded(wanted, LOCAL_READ_CONCURRENCY, (w) => local.read(w.path));
  for (const [i, w] of wanted.entries()) {
    const read = reads[i];
    if (read?.text !== undefined && read.hash === w.expect) texts.set(w.path, read.text);
  }
  return texts;
}

/** "remote v7" for conflict markers; "remote" when the history cannot say. */
export async function remoteLabel(client: V3Client, editorId: string, artifactId: string): Promise<string> {
  try {
    const page = await client.listVersions(editorId, 0);
    const v = page.versions.find((x) => x.artifactId === artifactId);
    return v === undefined ? "remote" : `remote ${v.versionLabel}`;
  } catch {
    return "remote";
  }
}
