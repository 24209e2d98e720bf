/**
 * The user asked for a new version: `.mpsync/asked.json`. `prompt` and `checkout` write it
 * before they ask the service, with the PATCHes answered so far (state.json's `landed`); the
 * process that syncs the folder (a daemon, or the command itself) takes it before its next
 * cycle, so a version built after those PATCHes is the user's decision, never a race to report
 * (sync/other-writers.ts). Order, not time, decides: only the records listed are marked.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import { writeJsonAtomically } from "../local/atomic-write.js";
import { assertStateDirSafe, STATE_DIR_NAME } from "./state-store.js";

const intentSchema = z.object({
  kind: z.enum(["prompt", "checkout"]),
  /** Wall clock ms: shown only. */
  at: z.number(),
  /** path -> hash sent by each PATCH answered when the user asked. */
  landed: z.record(z.string(), z.string()),
  /** `checkout`: path -> hashes of our texts sent with no answer yet when the user chose a version. */
  unanswered: z.record(z.string(), z.array(z.string())).optional(),
});
const fileSchema = z.object({ intents: z.array(intentSchema) });

/** One request for a new version, and the PATCHes answered before it. */
export type VersionIntent = z.infer<typeof intentSchema>;

/** Intents kept until taken (a daemon down for long keeps the last few). */
const INTENTS_KEPT = 8;

function intentPath(root: string): string {
  return join(root, STATE_DIR_NAME, "asked.json");
}

async function readIntents(root: string): Promise<VersionIntent[]> {
  const raw = await readFile(intentPath(root), "utf8").catch(() => undefined);
  if (raw === undefined) return [];
  try {
    const parsed = fileSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data.intents : [];
  } catch {
    return [];
  }
}

/**
 * Records that the user asked for a new version now, with the PATCHes state.json lists as
 * answered and, for a checkout, the texts it lists as sent with no answer (one of them in the
 * version chosen is the user's choice, not our request arriving late); nothing when there are
 * none.
 */
export async function recordVersionIntent(root: string, kind: VersionIntent["kind"], at: number): Promise<void> {
  const { landed, unanswered } = await sentPushes(root);
  const chosenOver = kind === "checkout" && Object.keys(unanswered).length > 0 ? { unanswered } : {};
  if (Object.keys(landed).length === 0 && chosenOver.unanswered === undefined) return;
  await assertStateDirSafe(join(root, STATE_DIR_NAME));
  const intent: VersionIntent = { kind, at, landed, ...chosenOver };
  const intents = [...(await readIntents(root)), intent].slice(-INTENTS_KEPT);
  await writeJsonAtomically(intentPath(root), { intents });
}

/**
 * What state.json lists as sent: path -> hash of each answered PATCH, and path -> hashes sent
 * with no answer (in flight, or replaced since). A missing or malformed file lists none.
 */
async function sentPushes(root: string): Promise<{ landed: Record<string, string>; unanswered: Record<string, string[]> }> {
  const none = { landed: {}, unanswered: {} };
  const raw = await readFile(join(root, STATE_DIR_NAME, "state.json"), "utf8").catch(() => undefined);
  if (raw === undefined) return none;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return none;
  }
  const sent = sentSchema.safeParse(parsed);
  if (!sent.success) return none;
  const unanswered: Record<string, string[]> = { ...sent.data.unanswered };
  for (const [path, p] of Object.entries(sent.data.pendingPush ?? {})) if (p.sent === true) unanswered[path] = [...(unanswered[path] ?? []), p.hash];
  return { landed: Object.fromEntries(Object.entries(sent.data.landed ?? {}).map(([p, l]) => [p, l.hash])), unanswered };
}

const sentSchema = z.object({
  landed: z.record(z.string(), z.object({ hash: z.string() })).optional(),
  unanswered: z.record(z.string(), z.array(z.string())).optional(),
  pendingPush: z.record(z.string(), z.object({ hash: z.string(), sent: z.literal(true).optional() })).optional(),
});

/** Reads and removes the folder's intents (a malformed file counts as none). */
export async function takeVersionIntents(root: string): Promise<VersionIntent[]> {
  const intents = await readIntents(root);
  if (intents.length > 0) await rm(intentPath(root), { force: true });
  return intents;
}
