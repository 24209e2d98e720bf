/**
 * The process edge: argv, environment, streams, signals and the exit code. Nothing else touches
 * them. `src/bin.ts` loads this module (bundled as `dist/cli.cjs`) and calls main().
 */
import { runCli } from "./cli/program.js";
import { isErrno } from "./core/errors.js";

/** Runs the command line of this process, then exits with its code. */
export async function main(): Promise<void> {
  // A reader that leaves early (`mpsync status | head -2`) closes the pipe: the rest of the
  // output goes nowhere, quietly, and the command still finishes its work (a pull is never cut
  // short by its reader). Any other stream error stays fatal.
  const readerLeft = (err: Error): void => {
    if (!isErrno(err, "EPIPE", "ERR_STREAM_DESTROYED")) throw err;
  };
  process.stdout.on("error", readerLeft);
  process.stderr.on("error", readerLeft);

  const code = await runCli({
    argv: process.argv,
    cwd: process.cwd(),
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    // Read only by `login` and `login --with-token`: the first read of process.stdin builds its
    // stream (fs, net or tty by what stdin is), time every other command need not spend.
    get stdin() {
      return process.stdin;
    },
    onSignal(signal, handler) {
      process.on(signal, handler);
      return () => process.off(signal, handler);
    },
  });
  // Let stdout drain (JSON documents can be large when piped) before exiting.
  process.exitCode = code;
  if (process.stdout.writableNeedDrain && !process.stdout.destroyed) {
    await new Promise((resolve) => {
      process.stdout.once("drain", resolve);
      process.stdout.once("close", resolve);
    });
  }
  process.exit(code);
}
