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
 * answered; nothing when there are none (nothing a version could be said to have dropped).
 */
export async function recordVersionIntent(root: string, kind: VersionIntent["kind"], at: number): Promise<void> {
  const landed = await answeredPushes(root);
  if (Object.keys(landed).length === 0) return;
  await assertStateDirSafe(join(root, STATE_DIR_NAME));
  const intent: VersionIntent = { kind, at, landed };
  const intents = [...(await readIntents(root)), intent].slice(-INTENTS_KEPT);
  await writeJsonAtomically(intentPath(root), { intents });
}

/** path -> hash of each answered PATCH state.json lists (a missing or malformed file lists none). */
async function answeredPushes(root: string): Promise<Record<string, string>> {
  const raw = await readFile(join(root, STATE_DIR_NAME, "state.json"), "utf8").catch(() => undefined);
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return {};
  }
  const landed = landedSchema.safeParse(parsed);
  return landed.success ? Object.fromEntries(Object.entries(landed.data.landed ?? {}).map(([p, l]) => [p, l.hash])) : {};
}

const landedSchema = z.object({ landed: z.record(z.string(), z.object({ hash: z.string() })).optional() });

/** Reads and removes the folder's intents (a malformed file counts as none). */
export async function takeVersionIntents(root: string): Promise<VersionIntent[]> {
  const intents = await readIntents(root);
  if (intents.length > 0) await rm(intentPath(root), { force: true });
  return intents;
}
