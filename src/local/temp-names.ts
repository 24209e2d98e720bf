/** The names of this tool's temp files in a mapped folder (atomic-write.ts, held-replace.ts). */
import { randomBytes } from "node:crypto";

/**
 * Suffix of the temp files of writeFileAtomicallyGuarded. It matches the built-in `*.tmp`
 * ignore rule, so neither the watcher nor a scan ever sees a half-written sibling of a synced
 * file (write-file-atomic names its temps `<file>.<number>`, which a scan would take for a
 * new user file).
 */
export const GUARDED_TEMP_SUFFIX = ".mpsync.tmp";

/** Unique per process and call: no random bytes (and no syscall) per write. */
const TEMP_PREFIX = `${process.pid.toString(36)}${randomBytes(3).toString("hex")}`;
let tempCounter = 0;

/** A tag no other temp name of this process carries. */
export function tempTag(): string {
  tempCounter += 1;
  return `${TEMP_PREFIX}${tempCounter.toString(36)}`;
}
