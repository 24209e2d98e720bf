/**
 * Atomic file writes: temp file in the same folder, fsync, rename (write-file-atomic).
 * A kill -9 at any moment leaves either the old or the new content, never a torn file.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";

/** Writes `data` to `file` atomically, creating parent folders. */
export async function writeFileAtomically(
  file: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, typeof data === "string" ? data : Buffer.from(data), {
    fsync: true,
    ...(options.mode === undefined ? {} : { mode: options.mode }),
  });
}

/** Writes `value` as pretty JSON, atomically. */
export async function writeJsonAtomically(file: string, value: unknown, options: { mode?: number } = {}): Promise<void> {
  await writeFileAtomically(file, `${JSON.stringify(value, null, 2)}\n`, options);
}
