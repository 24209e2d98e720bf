/** `mpsync dev [DIR]`: parses, starts the use case (app/dev.ts), prints the address, runs the daemon until stopped. */
import { startDev } from "../../app/dev.js";
import { MpsyncError } from "../../core/errors.js";
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
  const session = await startDev(ctx.runtime, {
    mapping,
    port,
    defaultPort: DEFAULT_DEV_PORT,
    env: ctx.io.env,
    onEvent: (e) => ctx.out.event(e),
    say: (message, level) =>
      ctx.out.event(level === "error" ? { event: "error", dir: mapping.dir, code: "PREVIEW", message } : { event: "notice", dir: mapping.dir, message }),
  });
  ctx.out.event({ event: "notice", dir: mapping.dir, message: `preview on ${session.url}`, url: session.url });
  if (flags.open === true && !(await openInBrowser(session.url, ctx.io.env))) ctx.out.warn(`could not start a browser: open ${session.url} yourself`);
  try {
    return await runDaemonUntilStopped(ctx, session.daemon);
  } finally {
    await session.close();
  }
}

function parsePort(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new MpsyncError("USAGE", `--port ${JSON.stringify(raw)} is not a port (0 to 65535)`);
  return n;
}
