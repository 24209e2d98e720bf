/**
 * Watches the daemon's .syncrc so a saved change (an edit, `mpsync init` adding a mapping)
 * is taken without a signal. The folder is watched, not the file: editors and `init` save by
 * writing a temp file and renaming it over, which replaces the file a watch would hold.
 */
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname } from "node:path";

/** Quiet time after the last change of .syncrc before it is read (one save is several events). */
export const CONFIG_SETTLE_MS = 300;

/** A running watch of one config file. */
export interface ConfigWatcher {
  /** Tells the watcher the text now in effect (a reload by signal), so the same text is not taken twice. */
  taken(text: string | undefined): void;
  close(): void;
}

/** Options of watchConfigFile. */
export interface WatchConfigOptions {
  path: string;
  /** The text loaded at start. */
  initialText: string | undefined;
  /** Called with each new text (after the settle time; never twice for the same text). */
  onChange: (text: string) => void;
  /** The watch itself failed (the folder went away): SIGHUP still reloads. */
  onError: (err: unknown) => void;
  settleMs?: number;
}

/** Watches `path` for saved changes. */
export function watchConfigFile(options: WatchConfigOptions): ConfigWatcher {
  let last = options.initialText;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const name = basename(options.path);
  const check = async (): Promise<void> => {
    const text = await readFile(options.path, "utf8").catch(() => undefined);
    // Gone (between an editor's delete and its write) or unchanged (a touch): nothing to take.
    if (closed || text === undefined || text === last) return;
    last = text;
    options.onChange(text);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(options.path), { persistent: false }, (_event, file) => {
      if (file !== null && file !== name) return;
      clearTimeout(timer);
      timer = setTimeout(() => void check(), options.settleMs ?? CONFIG_SETTLE_MS);
    });
    watcher.on("error", (err) => options.onError(err));
  } catch (err) {
    options.onError(err);
  }
  return {
    taken(text) {
      last = text;
    },
    close() {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

/** The text of the config file, or undefined when it cannot be read. */
export function readConfigText(path: string): Promise<string | undefined> {
  return readFile(path, "utf8").catch(() => undefined);
}
