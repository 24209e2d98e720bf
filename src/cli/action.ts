/**
 * How a declared command reaches its implementation (Vite's `cli.ts` shape): the declaration
 * (name, arguments, options, help) is built eagerly by src/cli/declare/, and its action loads
 * the implementation module with `import()` only when the command runs. Implementations never
 * import the declarations or the program, so nothing imports back.
 */
import type { Command } from "commander";
import type { CliIo, CommandContext } from "./context.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";

/** A command's implementation: runs with the built context, resolves to its exit code (0 when void). */
export type Action<A extends unknown[]> = (ctx: CommandContext, ...args: A) => Promise<number | void>;

/** Holds the exit code an action produced. */
export interface ExitHolder {
  code: number;
}

/** What each declaration gets: the process edge, the exit code holder, and `run`. */
export interface Declare {
  io: CliIo;
  exit: ExitHolder;
  /**
   * The commander action of a command whose implementation `load` imports: builds the context
   * (the runtime: pino, undici, zod load here, not when help is read), runs it, maps errors to
   * one line and an exit code.
   */
  run<A extends unknown[]>(load: () => Promise<Action<A>>): (...raw: unknown[]) => Promise<void>;
}

/** The `Declare` of one run of the CLI. */
export function declareWith(io: CliIo, exit: ExitHolder): Declare {
  return {
    io,
    exit,
    run:
      <A extends unknown[]>(load: () => Promise<Action<A>>) =>
      async (...raw: unknown[]): Promise<void> => {
        const command = raw[raw.length - 1] as Command;
        // Before any module that builds a zod schema: zod reads its setting as each is built.
        await import("../core/zod-jitless.js");
        const [{ contextFor, explainRefusedKey }, body] = await Promise.all([import("./context.js"), load()]);
        const ctx = contextFor(io, command);
        try {
          await ctx.runtime.prepare();
          const code = await body(ctx, ...(raw.slice(0, -1) as A));
          exit.code = code ?? EXIT.ok;
        } catch (err) {
          ctx.out.error(explainRefusedKey(err, ctx));
          exit.code = exitCodeFor(err);
        } finally {
          await ctx.runtime.close();
        }
      },
  };
}
