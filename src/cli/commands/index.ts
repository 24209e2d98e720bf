/** Registers every command beside pull/push/status/watch. */
import type { Command } from "commander";
import type { ExitHolder } from "../program.js";
import type { CliIo } from "../context.js";
import { registerAuth } from "./auth.js";
import { registerCheckout } from "./checkout.js";
import { registerCreate } from "./create.js";
import { registerDoctor } from "./doctor.js";
import { registerEmulator } from "./emulator.js";
import { registerHistory } from "./history.js";
import { registerInit } from "./init.js";
import { registerLookups } from "./lookup.js";
import { registerPrompt } from "./prompt.js";
import { registerPublish } from "./publish.js";
import { registerRestore } from "./restore.js";
import { registerVersions } from "./versions.js";

/** Adds init, create, prompt, versions, checkout, snapshot, history, publish, restore, design-systems, resolve-url, login, logout, doctor, emulator. */
export function registerExtraCommands(program: Command, io: CliIo, exit: ExitHolder): void {
  registerInit(program, io, exit);
  registerCreate(program, io, exit);
  registerPrompt(program, io, exit);
  registerVersions(program, io, exit);
  registerCheckout(program, io, exit);
  registerHistory(program, io, exit);
  registerPublish(program, io, exit);
  registerRestore(program, io, exit);
  registerLookups(program, io, exit);
  registerAuth(program, io, exit);
  registerDoctor(program, io, exit);
  registerEmulator(program, io, exit);
}
