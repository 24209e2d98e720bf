/** `mpsync dev [DIR]`: `watch` for one folder plus a live preview of its design on 127.0.0.1. */
import { WatchDaemon } from "../../daemon/watch-daemon.js";
import { MpsyncError, isErrno } from "../../core/errors.js";
import { DependencyCache, previewCacheDir } from "../../preview/dependency-cache.js";
import { DevPreview } from "../../preview/dev-preview.js";
import { NpmInstaller } from "../../preview/package-installer.js";
import { loadToolchain } from "../../preview/toolchain.js";
import type { CommandContext } from "../context.js";
import { DEFAULT_DEV_PORT } from "../help-facts.js";
import { openInBrowser } from "./open.js";
import { runDaemonUntilStopped } from "./watch.js";

interface DevFlags {
  port?: string;
  open?: boolean;
  dir?: string;
}

/** `mpsync dev`. */
export async function runDev(ctx: CommandContext, dir: string | undefined, flags: DevFlags): Promise<number> {
  const port = parsePort(flags.port);
  if (dir !== undefined && flags.dir !== undefined && dir !== flags.dir)
    throw new MpsyncError("USAGE", `two folders given (${dir} and --dir ${flags.dir}): give one`);
  const mapping = await ctx.runtime.singleMapping(dir ?? flags.dir);
  const installer = new NpmInstaller({ env: ctx.io.env });
  const cacheDir = previewCacheDir(ctx.io.env);
  const tools = await loadToolchain({
    cacheDir,
    installer,
    onInstall: (specs, where) => ctx.out.warn(`first run of the preview: installing its toolchain (${specs.join(", ")}) into ${where}`),
  });
  const notice = (message: string, level: "info" | "warn" | "error"): void =>
    ctx.out.event(level === "error" ? { event: "error", dir: mapping.dir, code: "PREVIEW", message } : { event: "notice", dir: mapping.dir, message });
  const preview = new DevPreview({
    root: mapping.root,
    tools,
    cache: cacheDir === undefined ? undefined : new DependencyCache({ dir: cacheDir, installer }),
    say: notice,
  });
  const daemon = new WatchDaemon({
    runtime: ctx.runtime,
    dirs: [mapping.root],
    emit: (e) => {
      ctx.out.event(e);
      preview.syncEvent(e);
    },
    writes: preview,
  });
  let bound: number;
  try {
    await preview.start();
    bound = await preview.listen(port ?? DEFAULT_DEV_PORT).catch((err: unknown) => {
      if (port === undefined && isErrno(err, "EADDRINUSE")) return preview.listen(0);
      throw err;
    });
  } catch (err) {
    await preview.close();
    throw err;
  }
  const url = `http://127.0.0.1:${bound}/`;
  ctx.out.event({ event: "notice", dir: mapping.dir, message: `preview on ${url}`, url });
  if (flags.open === true && !(await openInBrowser(url, ctx.io.env))) ctx.out.warn(`could not start a browser: open ${url} yourself`);
  try {
    return await runDaemonUntilStopped(ctx, daemon);
  } finally {
    await preview.close();
  }
}

function parsePort(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new MpsyncError("USAGE", `--port ${JSON.stringify(raw)} is not a port (0 to 65535)`);
  return n;
}
