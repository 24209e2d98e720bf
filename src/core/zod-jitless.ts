/**
 * zod's parsers without its just-in-time compiled object parsers (`z.config({ jitless: true })`,
 * zod's documented setting), for the CLI process: zod compiles one parser per object schema with
 * `new Function` on its first parse, code that no compile cache keeps, so every command paid for
 * it again to parse a few small documents (`.syncrc`, the state, a status answer). An object
 * schema reads the setting when it is built, so a command's action imports this module before
 * its own modules, which build the schemas (src/cli/action.ts); help and usage errors load no
 * zod at all. The library entry leaves the setting, which is process-wide, to its host.
 */
import * as z from "zod";

z.config({ jitless: true });
