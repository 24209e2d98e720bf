/**
 * Whether a process with `pid` exists on this machine: kill(pid, 0) sends nothing; ESRCH means
 * no such process, EPERM that one exists under another user. The one reader of that answer
 * (the folder lock, the poll claims, the preview's install lock).
 */
import { isErrno } from "./errors.js";

export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return !isErrno(err, "ESRCH");
  }
}
