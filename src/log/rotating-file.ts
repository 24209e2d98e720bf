/**
 * `--log-file PATH`: logs go to exactly PATH (so `tail -f PATH` works), and when it reaches the
 * size limit it is renamed PATH.1 (PATH.1 to PATH.2, ...; the oldest beyond `keep` is dropped)
 * and a new PATH is started, as logrotate names them. Writes are buffered by pino's own
 * destination (SonicBoom) in this thread; no worker, no transport.
 */
import { mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { pino, type DestinationStream } from "pino";

/** A pino destination writing `file`, rotated at `maxBytes` with `keep` old files beside it. */
export function rotatingFileDestination(
  file: string,
  options: { maxBytes: number; keep: number },
): DestinationStream & { flushSync(): void; flush(cb?: (err?: Error) => void): void } {
  mkdirSync(dirname(file), { recursive: true });
  // Synchronous: a log line is rare next to sync work, and none is lost when the process is killed.
  const sink = pino.destination({ dest: file, append: true, sync: true, mkdir: true });
  let size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const rotate = (): void => {
    sink.flushSync();
    rmSync(`${file}.${options.keep}`, { force: true });
    for (let i = options.keep - 1; i >= 1; i--) {
      try {
        renameSync(`${file}.${i}`, `${file}.${i + 1}`);
      } catch {
        // Not there yet: fewer old files than `keep`.
      }
    }
    renameSync(file, `${file}.1`);
    sink.reopen();
    size = 0;
  };
  return {
    write(chunk: string): void {
      sink.write(chunk);
      size += Buffer.byteLength(chunk);
      if (size >= options.maxBytes) rotate();
    },
    flushSync(): void {
      sink.flushSync();
    },
    // pino's logger.flush() (Runtime.close) lands here: nothing is left in memory at exit.
    flush(cb?: (err?: Error) => void): void {
      try {
        sink.flushSync();
        cb?.();
      } catch (err) {
        cb?.(err as Error);
      }
    },
  };
}
