/** `mpsync dev [DIR]`: `watch` for one folder plus a live preview of its design on 127.0.0.1. */
import type { Command } from "commander";
import { WatchDaemon } from "../../daemon/watch-daemon.js";
import { MpsyncError, isErrno } from "../../core/errors.js";
import { DependencyCache, previewCacheDir } from "../../preview/dependency-cache.js";
import { DevPreview } from "../../preview/dev-preview.js";
import { NpmInstaller } from "../../preview/package-installer.js";
import { loadToolchain } from "../../preview/toolchain.js";
import { action, type ExitHolder } from "../program.js";
import type { CliIo, CommandContext } from "../context.js";
import { openInBrowser } from "./open.js";
import { runDaemonUntilStopped } from "./watch.js";

/** The port tried first; when taken, any free one. */
export const DEFAULT_DEV_PORT = 5180;

interface DevFlags {
  port?: string;
  open?: boolean;
  dir?: string;
}

/** Registers `dev`. */
export function registerDev(program: Command, io: CliIo, exit: ExitHolder): void {
  program
    .command("dev")
    .description("watch one mapped folder and serve a live preview of its design on 127.0.0.1 (React, Tailwind v3, hot reload)")
    .argument("[dir]", "the mapped folder (default: the one you are in, or the only one)")
    .option("--port <n>", `port of the preview (default ${DEFAULT_DEV_PORT}, or a free one when taken; 0: any free one)`)
    .option("--open", "open the preview in the browser")
    .option("--dir <dir>", "the mapped folder (as the other single-design commands take it)")
    .addHelpText(
      "after",
      `
Runs the daemon for the folder exactly as \`watch\` does, and serves the design: index.tsx
mounted into #root (an index.html is provided when the design has none; nothing is written
into the folder), index.css through Tailwind v3 with the design's tailwind.config.js. A saved
stylesheet applies without a reload, a saved component reloads the page, a pulled version
reloads it once all its files are written. Packages the design imports (lucide-react,
framer-motion, ...) are installed on first need into a per-user cache (MPSYNC_PREVIEW_CACHE)
and work offline afterwards. Compile and runtime errors show in the page and as one line here.

Examples:
  $ mpsync dev
  $ mpsync dev web --port 3000 --open`,
    )
    .action(action(io, exit, async (ctx, dir: string | undefined, flags: DevFlags) => runDev(ctx, dir, flags)));
}

async function runDev(ctx: CommandContext, dir: string | undefined, flags: DevFlags): Promise<number> {
  const port = parsePort(flags.port);
  if (dir !== undefined && flags.dir !== undefined && dir !== flags.dir) throw new MpsyncError("USAGE", `two folders given (${dir} and --dir ${flags.dir}): give one`);
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
