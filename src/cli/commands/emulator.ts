/** `mpsync emulator`: serve the local v3 emulator until SIGINT/SIGTERM. */
import { isLoopbackUrl } from "../../config/poll-floor.js";
import { MpsyncError } from "../../core/errors.js";
import type { EmulatorOptions } from "../../emulator/index.js";
import type { CommandContext } from "../context.js";

interface EmulatorFlags {
  port?: string;
  host?: string;
  key?: string[];
  generationMs?: string;
  data?: string;
  strictPoll?: boolean;
  maxBodyBytes?: string;
  compress?: string;
}

/** `mpsync emulator`. */
export async function runEmulator(ctx: CommandContext, flags: EmulatorFlags): Promise<void> {
  const options: EmulatorOptions = {
    port: parseCount("--port", flags.port ?? "0"),
    host: flags.host ?? "127.0.0.1",
    keys: flags.key ?? [],
    generationMs: parseCount("--generation-ms", flags.generationMs ?? "3000"),
    strictPoll: flags.strictPoll === true,
    logger: (line) => ctx.out.debug(line),
    // An installed mpsync has no esbuild beside it: publish also looks where the emulator runs.
    esbuildDir: ctx.io.cwd,
  };
  if (flags.data !== undefined) options.dataFile = flags.data;
  if (flags.maxBodyBytes !== undefined) options.maxBodyBytes = parseCount("--max-body-bytes", flags.maxBodyBytes);
  if (flags.compress !== undefined) options.compress = parseCompress(flags.compress);
  const warning = exposedHostWarning(options.host ?? "127.0.0.1");
  if (warning !== undefined) ctx.out.warn(warning);
  // Loaded on demand: no other command pays for the emulator's modules at start-up.
  const { startEmulator } = await import("../../emulator/index.js");
  const emulator = await startEmulator(options);
  // Listening for the signals before the address is printed: whoever reads it (a script, a
  // supervisor) may stop the emulator at once, and a SIGTERM before the handler killed the
  // process without closing it (exit by signal, not 0).
  const stopped = untilSignal(ctx.io);
  try {
    ctx.out.result("emulator", { ok: true, baseUrl: emulator.baseUrl }, () => {
      ctx.out.success(`emulator listening on ${ctx.out.c.bold(emulator.baseUrl)}`);
      // A line a person pastes into a shell: what follows the command is a shell comment.
      ctx.out.info(ctx.out.c.dim(`  export MPSYNC_BASE_URL=${emulator.baseUrl}   # Ctrl-C stops the emulator`));
    });
    await stopped;
  } finally {
    await emulator.close();
  }
  ctx.out.info("emulator stopped");
}

function untilSignal(io: CommandContext["io"]): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      for (const off of offs) off();
      resolve();
    };
    const offs = [io.onSignal("SIGINT", stop), io.onSignal("SIGTERM", stop)];
  });
}

function parseCompress(value: string): "auto" | "off" {
  if (value === "auto" || value === "off") return value;
  throw new MpsyncError("USAGE", `--compress ${value}: expected auto or off`);
}

function parseCount(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new MpsyncError("USAGE", `${flag} ${value}: expected a whole number >= 0`);
  return n;
}

/** A warning when `host` is not a loopback address (the emulator's /__control routes need no key). */
export function exposedHostWarning(host: string): string | undefined {
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  if (isLoopbackUrl(`http://${bracketed}/`)) return undefined;
  return `listening on ${host}, not a loopback address: anyone who can reach it can read and change every design (no key is needed for /__control)`;
}
