/**
 * The cross-process claim of a design's next status poll, so that of several processes due at
 * once exactly one polls and the others take its answer (PollScheduler). A claim is a symlink
 * `<dir>/<sha256(editorId)>` whose target is `{pid, host, at, nonce}`: symlink(2) creates it
 * with its content in one step or fails with EEXIST, so there is no half-written claim, and
 * neither taking nor releasing one writes a file (only directory entries).
 *
 * Why not proper-lockfile (mkdir plus an mtime refreshed on a timer): its staleness is a wall
 * clock age, which a clock set forward 3 h declares stale under a live poller, and it needs a
 * timer per held lock. Here a holder whose pid is gone (same host) is stale at once; any other
 * holder only after the scheduler has watched it longer than a poll may take, on its
 * monotonic clock. Like Emacs's `.#file` lock links.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readlink, rename, symlink, unlink } from "node:fs/promises";
import { hostname as osHostname } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import { isErrno } from "../core/errors.js";
import { processExists } from "../core/process-exists.js";

/** The outcome of a claim: held (poll, then release), or someone else's. */
export type PollClaim =
  | { held: true; release(): Promise<void> }
  | {
      held: false;
      /** Identifies this very claim (a later claim by the same process is another holder). */
      holder: string;
      /** When it was claimed (its poll may have reached the service since), if readable. */
      since: number | undefined;
      /** False only when its process is certainly gone (same host, no such pid). */
      alive: boolean;
    };

/** Claims of a design's next poll, shared by every process that uses the same folder. */
export interface PollClaims {
  /** Tries to claim `editorId`'s next poll; `at`: the caller's wall time (stored for others). */
  claim(editorId: string, at: number): Promise<PollClaim>;
  /** Removes the claim `holder` if it is still the one in place (its process died or hung). */
  breakClaim(editorId: string, holder: string): Promise<void>;
}

/** Who this process is, and how to tell whether another is alive (tests inject these). */
export interface ClaimIdentity {
  pid?: number;
  host?: string;
  isAlive?: (pid: number) => boolean;
}

const holderSchema = z.object({ pid: z.number().int(), host: z.string(), at: z.number().finite() });

/** A claim that never excludes anyone: where the folder cannot hold symlinks, polls go on uncoordinated across processes. */
const UNCOORDINATED: PollClaim = { held: true, release: () => Promise.resolve() };

/** Claims kept as symlinks in `dir`. */
export function createFileClaims(dir: string, identity: ClaimIdentity = {}): PollClaims {
  const pid = identity.pid ?? process.pid;
  const host = identity.host ?? osHostname();
  const isAlive = identity.isAlive ?? processExists;
  const pathOf = (editorId: string): string => join(dir, createHash("sha256").update(editorId, "utf8").digest("hex").slice(0, 32));
  return {
    async claim(editorId, at) {
      const path = pathOf(editorId);
      const mine = JSON.stringify({ pid, host, at, nonce: randomBytes(8).toString("hex") });
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await symlink(mine, path);
          return { held: true, release: () => removeIfStill(path, mine) };
        } catch (err) {
          if (isErrno(err, "ENOENT")) await mkdir(dir, { recursive: true });
          else if (!isErrno(err, "EEXIST")) return UNCOORDINATED;
        }
        const holder = await readlink(path, "utf8").catch(() => undefined);
        // Gone between our attempt and the read (released): try again.
        if (holder === undefined) continue;
        const who = parseHolder(holder);
        if (who === undefined) return { held: false, holder, since: undefined, alive: true };
        return { held: false, holder, since: who.at, alive: who.host !== host || isAlive(who.pid) };
      }
      // Claimed and released three times while we looked: a busy moment, not a held claim.
      return { held: false, holder: "", since: undefined, alive: true };
    },
    breakClaim: (editorId, holder) => removeIfStill(pathOf(editorId), holder),
  };
}

/**
 * Removes the claim at `path` only if it is `expected`: it is first moved aside (atomic: of two
 * removers, one moves it), and a claim that turns out to be another's is put back.
 */
async function removeIfStill(path: string, expected: string): Promise<void> {
  const aside = `${path}.gone-${randomBytes(6).toString("hex")}`;
  try {
    await rename(path, aside);
  } catch {
    return; // Already gone.
  }
  const moved = await readlink(aside, "utf8").catch(() => undefined);
  if (moved !== undefined && moved !== expected) {
    // A newer claim replaced the one judged: put it back (same content, so its holder still
    // recognises it), unless yet another was made meanwhile.
    await symlink(moved, path).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

/** A claim's content, or undefined when it is not one of ours (then it is only ever judged by age). */
function parseHolder(text: string): z.infer<typeof holderSchema> | undefined {
  try {
    const parsed = holderSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
