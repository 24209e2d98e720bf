import { describe, expect, it } from "vitest";
import { describeWatcherError } from "./watcher-errors.js";

const fsError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe("describeWatcherError", () => {
  it.each([
    [
      "ENOSPC",
      fsError("ENOSPC", "ENOSPC: System limit for number of file watchers reached, watch '/x'"),
      "the system's limit of inotify watches is reached: saves in some folders are not seen at once (the content check every 60 s still finds them); raise it (sudo sysctl fs.inotify.max_user_watches=524288) and restart mpsync watch",
    ],
    [
      "EMFILE",
      fsError("EMFILE", "EMFILE: too many open files, watch"),
      "too many open files for the watcher: saves in some folders are not seen at once (the content check every 60 s still finds them); raise the limit (ulimit -n) and restart mpsync watch",
    ],
    ["EACCES", fsError("EACCES", "EACCES: permission denied, watch '/x'\nmore"), "watcher error: EACCES: permission denied, watch '/x'"],
    ["WATCHER", "something odd", "watcher error: something odd"],
  ])("%s", (code, err, message) => {
    expect(describeWatcherError(err, 60)).toEqual({ code, message });
  });
});
