/**
 * `mpsync dev`'s use case: the daemon for one folder, and its live preview beside it. The
 * folder is checked free and the address taken before anything is printed; sync starts at
 * once, while the preview fetches what it needs (its page says what it waits for).
 */
import { MpsyncError, isErrno } from "../core/errors.js";
import { WatchDaemon } from "../daemon/watch-daemon.js";
import { DevPreview } from "../preview/dev-preview.js";
import { NpmInstaller } from "../preview/package-installer.js";
import { previewCacheDir } from "../preview/package-folder.js";
import { PreviewFront } from "../preview/preview-front.js";
import { loadToolchain } from "../preview/toolchain.js";
import type { Mapping, Runtime } from "../runtime.js";
import { assertFolderFree } from "../state/lock.js";
import type { SyncEvent } from "../sync/events.js";

/** What `startDev` takes. */
export interface DevOptions {
  mapping: Mapping;
  /** The port asked for with --port (0: any free port), or undefined. */
  port: number | undefined;
  /** The port tried when none is asked for (a busy one falls back to any free port). */
  defaultPort: number;
  env: NodeJS.ProcessEnv;
  /** The daemon's events. */
  onEvent: (e: SyncEvent) => void;
  /** The preview's lines. */
  say: (line: string, level: "info" | "warn" | "error") => void;
}

/** A started `mpsync dev`: its address, and the daemon to run until stopped. */
export interface DevSession {
  url: string;
  daemon: WatchDaemon;
  preview: DevPreview;
  /** Stops the preview and its address (the daemon is stopped by whoever runs it). */
  close(): Promise<void>;
}

/** Checks the folder, takes the address, starts preparing the preview; the caller runs the daemon. */
export async function startDev(runtime: Runtime, o: DevOptions): Promise<DevSession> {
  await assertFolderFree(o.mapping.root);
  const front = new PreviewFront();
  const port = await listenOn(front, o.port, o.defaultPort);
  const cacheDir = previewCacheDir(o.env);
  const installer = new NpmInstaller({ env: o.env });
  const preview = new DevPreview({
    root: o.mapping.root,
    front,
    cacheDir: cacheDir ?? "",
    installer,
    tools: () =>
      loadToolchain({
        cacheDir,
        installer,
        onInstall: (specs, where) => o.say(`first run of the preview: installing its toolchain (${specs.join(", ")}) into ${where}`, "warn"),
      }),
    say: o.say,
  });
  const daemon = new WatchDaemon({
    runtime,
    dirs: [o.mapping.root],
    command: "mpsync dev",
    emit: (e) => {
      o.onEvent(e);
      preview.syncEvent(e);
    },
    writes: preview,
    onLocalChange: (rel) => preview.localChange(rel),
  });
  void preview.start();
  return {
    url: `http://127.0.0.1:${port}/`,
    daemon,
    preview,
    async close() {
      await preview.close();
      await front.close();
    },
  };
}

/** Listens on the port asked for (one in use names --port 0), else the default or, when that is busy, any free port. */
export async function listenOn(front: PreviewFront, port: number | undefined, defaultPort: number): Promise<number> {
  try {
    return await front.listen(port ?? defaultPort);
  } catch (err) {
    if (!isErrno(err, "EADDRINUSE")) throw err;
    if (port === undefined) return front.listen(0);
    throw new MpsyncError("USAGE", `port ${port} is in use on 127.0.0.1`, { hint: "name another with --port N, or --port 0 for any free port" });
  }
}
