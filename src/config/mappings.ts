/**
 * The folder rule (README, "Commands"): which mappings of `.syncrc` a command acts on, from the
 * folders it names and the working directory. Pure: the Runtime hands in the config and cwd.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { MpsyncError } from "../core/errors.js";
import type { LoadedConfig } from "./load-config.js";

/** One mapping of .syncrc with its absolute folder. */
export interface Mapping {
  /** As written in .syncrc (relative to the config file): the stable name `--json` uses. */
  dir: string;
  design: string;
  root: string;
  /** How every line a person reads names the folder: `folderLabel(root, cwd)`. */
  label: string;
}

/** Every mapping of a loaded .syncrc, labelled for a process whose working directory is `cwd`. */
export function mappingsOf(loaded: LoadedConfig, cwd: string): Mapping[] {
  return loaded.config.designs.map((d) => ({ dir: d.dir, design: d.design, root: d.root, label: folderLabel(d.root, cwd) }));
}

/**
 * The one rule for naming a mapped folder to a person: its path from the working directory
 * (`.` there), with `/`. It is what `[DIR...]`, `cd` and an editor take from that directory,
 * so a label can be pasted back; `dir` as written in .syncrc is relative to the config file and
 * names another folder wherever the two differ (git shows paths from cwd the same way).
 */
export function folderLabel(root: string, cwd: string): string {
  const rel = relative(cwd, root);
  if (rel === "") return ".";
  // Another drive (Windows): no relative path exists.
  return isAbsolute(rel) ? root : rel.split(sep).join("/");
}

/** The mapped folder `cwd` is in (the deepest, when folders nest). */
export function mappingAt(all: readonly Mapping[], cwd: string): Mapping | undefined {
  const inside = all.filter((m) => cwd === m.root || cwd.startsWith(`${m.root}${sep}`));
  return inside.sort((a, b) => b.root.length - a.root.length)[0];
}

/**
 * The mappings named by `dirs` (folder paths, relative to `cwd`); none named: the mapped folder
 * `cwd` is in, else all of them. A name that maps nothing is a USAGE error listing the mapped ones.
 */
export function selectMappings(all: readonly Mapping[], dirs: readonly string[], cwd: string, configPath: string): Mapping[] {
  if (dirs.length === 0) {
    const here = mappingAt(all, cwd);
    return here === undefined ? [...all] : [here];
  }
  return dirs.map((wanted) => {
    // `web`, `web/`, `./web/`, an absolute path: whatever tab completion or a script gives.
    const abs = resolve(cwd, wanted);
    const trimmed = wanted.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
    const found = all.find((m) => m.root === abs || m.dir === trimmed || m.dir.replace(/\/+$/, "") === trimmed);
    if (found === undefined) {
      throw new MpsyncError("USAGE", `${wanted} is not a mapped folder in ${configPath}`, {
        hint: `mapped: ${all.map((m) => m.label).join(", ")}`,
      });
    }
    return found;
  });
}
