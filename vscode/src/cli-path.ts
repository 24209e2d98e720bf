/** Which `mpsync` the extension runs: the setting, else the workspace's node_modules/.bin, else PATH. Pure (the file test is passed in). */
import { delimiter, isAbsolute, join } from "node:path";

/** Where to look. */
export interface CliSearch {
  /** The `mpsync.path` setting ("" when unset). */
  setting: string;
  /** The workspace's folders (absolute). */
  folders: readonly string[];
  /** The PATH variable. */
  pathEnv: string;
  /** True when `path` is a file that can run. */
  runnable: (path: string) => boolean;
  platform?: NodeJS.Platform;
}

/** The program, or the one line that says what was not found and how to install it. */
export function findCli(search: CliSearch): { path: string } | { problem: string } {
  const names = (search.platform ?? process.platform) === "win32" ? ["mpsync.cmd", "mpsync.exe", "mpsync"] : ["mpsync"];
  const setting = search.setting.trim();
  if (setting !== "") {
    if (search.runnable(setting)) return { path: setting };
    const where = isAbsolute(setting) ? setting : `${setting} (use an absolute path)`;
    return { problem: `mpsync.path names ${where}, which is not a program: fix the setting, or clear it to use the workspace's node_modules/.bin or PATH` };
  }
  for (const folder of search.folders) {
    for (const name of names) {
      const candidate = join(folder, "node_modules", ".bin", name);
      if (search.runnable(candidate)) return { path: candidate };
    }
  }
  for (const dir of search.pathEnv.split(delimiter).filter((d) => d !== "")) {
    for (const name of names) {
      const candidate = join(dir, name);
      if (search.runnable(candidate)) return { path: candidate };
    }
  }
  return {
    problem:
      "mpsync not found (mpsync.path is unset, no node_modules/.bin/mpsync in the workspace, none on PATH): install it (npm install -g mpsync from a clone, see its README) or set mpsync.path",
  };
}
