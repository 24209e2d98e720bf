/**
 * The mapped folders of the workspace's `.syncrc` files (from `mpsync status --json`, read once)
 * and each one's live view, fed by its daemon's `subscribe` stream.
 */
import { dirname, resolve, sep } from "node:path";
import { inStateFolder } from "./conflict-markers.js";
import { DaemonLink } from "./daemon-link.js";
import { runJson } from "./cli-runner.js";
import { afterSave, foldUpdate, readHello, type FolderView } from "./state-view.js";

/** One mapped folder. */
export interface MappedFolder {
  /** As written in .syncrc (what the CLI takes, from `configDir`). */
  dir: string;
  /** Absolute. */
  root: string;
  /** The folder holding its .syncrc: where the CLI runs. */
  configDir: string;
  view: FolderView;
  /** True while a daemon answers on its socket. */
  live: boolean;
}

interface StatusDoc {
  designs: { dir: string; paused?: unknown; unresolvedConflicts?: string[] }[];
}

/** Every folder, and what changes them. */
export class Folders {
  readonly list: MappedFolder[] = [];
  readonly #links: DaemonLink[] = [];
  readonly #changed: () => void;

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  /** Reads the mappings of each .syncrc and starts following their daemons. */
  async load(cli: string, configFiles: readonly string[]): Promise<void> {
    for (const file of configFiles) {
      const configDir = dirname(file);
      const { doc } = await runJson<StatusDoc>(cli, ["status"], configDir, "status");
      for (const d of doc.designs) {
        const folder: MappedFolder = {
          dir: d.dir,
          root: resolve(configDir, d.dir),
          configDir,
          view: { kind: "no-daemon", paused: d.paused !== undefined },
          live: false,
        };
        this.list.push(folder);
        const link = new DaemonLink(folder.root, {
          line: (value, first) => this.#line(folder, value, first),
          gone: () => void this.#gone(folder, cli),
        });
        this.#links.push(link);
        link.connect();
      }
    }
    this.#changed();
  }

  /** The folder holding `path`, the deepest one first. */
  folderOf(path: string): MappedFolder | undefined {
    const inside = this.list.filter((f) => path === f.root || path.startsWith(f.root + sep));
    return inside.sort((a, b) => b.root.length - a.root.length)[0];
  }

  /** A file was saved: its folder shows `pushing` until the daemon's next word. */
  saved(path: string): void {
    const folder = this.folderOf(path);
    if (folder === undefined || folder.view.kind !== "live" || inStateFolder(folder.root, path)) return;
    folder.view = { kind: "live", state: afterSave(folder.view.state) };
    this.#changed();
  }

  /** Stops following. */
  dispose(): void {
    for (const link of this.#links) link.close();
  }

  #line(folder: MappedFolder, value: unknown, first: boolean): void {
    if (first) {
      const hello = readHello(value);
      folder.live = hello.ok;
      folder.view = hello.ok ? { kind: "live", state: hello.state } : { kind: "mismatch", message: hello.message };
    } else if (folder.view.kind === "live") {
      folder.view = { kind: "live", state: foldUpdate(folder.view.state, value) };
    }
    this.#changed();
  }

  async #gone(folder: MappedFolder, cli: string): Promise<void> {
    const wasLive = folder.live;
    folder.live = false;
    if (folder.view.kind === "mismatch") return;
    // Only when a daemon just went: whether the folder stays paused is in `status`, not the socket.
    if (wasLive) {
      const paused = await runJson<StatusDoc>(cli, ["status", folder.dir], folder.configDir, "status").then(
        ({ doc }) => doc.designs[0]?.paused !== undefined,
        () => false,
      );
      folder.view = { kind: "no-daemon", paused };
    }
    this.#changed();
  }
}
