/** `mpsync login` / `mpsync logout`: store or remove the API key (never in .syncrc). */
import type { Command } from "commander";
import { createClient } from "../../api/client.js";
import { hasCode, MpsyncError } from "../../core/errors.js";
import { removeStoredApiKey, storeApiKey } from "../../config/credentials.js";
import { credentialsPath } from "../../config/paths.js";
import { action, type ExitHolder } from "../program.js";
import type { CliIo, CommandContext } from "../context.js";
import { readSecret } from "../read-secret.js";

/** Registers `login` and `logout`. */
export function registerAuth(program: Command, io: CliIo, exit: ExitHolder): void {
  program
    .command("login")
    .description("check an API key against the service and store it (mode 0600) for later commands")
    .addHelpText(
      "after",
      `
The key is read without echo on a terminal, or as one line from stdin when piped.
It is stored in $XDG_CONFIG_HOME/mpsync/credentials.json (default ~/.config/mpsync); MP_API_KEY,
when set, wins over the stored key.

Examples:
  $ mpsync login
  $ pass show magicpatterns/api-key | mpsync login`,
    )
    .action(action(io, exit, (ctx) => runLogin(ctx)));

  program
    .command("logout")
    .description("remove the stored API key")
    .addHelpText("after", "\nExamples:\n  $ mpsync logout")
    .action(
      action(io, exit, async (ctx) => {
        const path = credentialsPath(ctx.io.env);
        const removed = await removeStoredApiKey(ctx.io.env);
        ctx.out.result({ ok: true, removed, path }, () => {
          if (removed) ctx.out.success(`removed the stored key (${path})`);
          else ctx.out.info(`no stored key (${path})`);
        });
        if (nonEmpty(ctx.io.env["MP_API_KEY"])) ctx.out.warn("MP_API_KEY is still set in this environment: unset it to log out completely");
      }),
    );
}

async function runLogin(ctx: CommandContext): Promise<void> {
  const key = (await readSecret(ctx.io, "API key (input hidden): ")).trim();
  if (key === "") throw new MpsyncError("USAGE", "no API key given: nothing was saved", { hint: "paste the key from your account settings, or pipe it on stdin" });
  // A broken .syncrc must not block storing a key: the address then comes from the env or the default.
  await ctx.runtime.configIfAny().catch(() => undefined);
  const baseUrl = ctx.runtime.baseUrl();
  // A client of its own: the runtime's client is bound to the key already in effect.
  const client = createClient({ baseUrl, apiKey: key });
  const started = ctx.runtime.clock.now();
  try {
    await client.health();
  } catch (err) {
    if (hasCode(err, "UNAUTHORIZED", "FORBIDDEN")) {
      throw new MpsyncError("UNAUTHORIZED", `the service refused this API key (${baseUrl}): nothing was saved`, {
        hint: "copy the key again from your account settings (API keys)",
        cause: err,
      });
    }
    throw err;
  } finally {
    await client.close();
  }
  const latencyMs = ctx.runtime.clock.now() - started;
  const path = await storeApiKey(key, ctx.io.env);
  ctx.out.result({ ok: true, path, baseUrl, latencyMs }, () => ctx.out.success(`key accepted by ${baseUrl} and saved to ${path}`));
  if (nonEmpty(ctx.io.env["MP_API_KEY"])) ctx.out.warn("MP_API_KEY is set in this environment and wins over the stored key");
}

function nonEmpty(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}
