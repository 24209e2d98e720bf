#!/usr/bin/env node
/** The process edge: argv, environment, streams, signals and the exit code. Nothing else touches them. */
import { runCli } from "./cli/program.js";
import { keepMemoryLow } from "./core/heap.js";

keepMemoryLow();

const code = await runCli({
  argv: process.argv,
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  onSignal(signal, handler) {
    process.on(signal, handler);
    return () => process.off(signal, handler);
  },
});
// Let stdout drain (JSON documents can be large when piped) before exiting.
process.exitCode = code;
if (process.stdout.writableNeedDrain) await new Promise((resolve) => process.stdout.once("drain", resolve));
process.exit(code);
