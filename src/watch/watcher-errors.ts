/**
 * What a watcher failure means to the user, in one line. chokidar reports a full inotify table
 * (ENOSPC) or file-descriptor table (EMFILE) as an `error` event and goes on without the
 * folders it could not watch: saves there are not seen until the next full sync.
 */
import { errnoCode } from "../core/errors.js";

/** The line for a watcher error `err`; `checkSec` is how often a full sync finds edits anyway. */
export function describeWatcherError(err: unknown, checkSec: number): { code: string; message: string } {
  const code = (err instanceof Error ? errnoCode(err) : undefined) ?? "WATCHER";
  const fallback = `saves in some folders are not seen at once (the content check every ${checkSec} s still finds them)`;
  if (code === "ENOSPC") {
    return {
      code,
      message: `the system's limit of inotify watches is reached: ${fallback}; raise it (sudo sysctl fs.inotify.max_user_watches=524288) and restart mpsync watch`,
    };
  }
  if (code === "EMFILE") {
    return { code, message: `too many open files for the watcher: ${fallback}; raise the limit (ulimit -n) and restart mpsync watch` };
  }
  const why = err instanceof Error ? err.message : String(err);
  return { code, message: `watcher error: ${why.split("\n")[0] ?? why}` };
}
