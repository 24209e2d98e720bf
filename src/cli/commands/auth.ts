/** `mpsync login` / `mpsync logout`: store or remove the API key (never in .syncrc). */
import { createClient } from "../../api/client.js";
import { hasCode, MpsyncError } from "../../core/errors.js";
import { addressKey, removeStoredApiKey, storeApiKey } from "../../config/credentials.js";
import { credentialsPath } from "../../config/paths.js";
import type { CommandContext } from "../context.js";
import { readFirstLine, readSecret } from "../read-secret.js";

/** `mpsync login`. */
export function runLogin(ctx: CommandContext, flags: { baseUrl?: string; withToken?: boolean }): Promise<void> {
  return login(ctx, flags.baseUrl, flags.withToken === true);
}

/** `mpsync logout`. */
export async function runLogout(ctx: CommandContext, flags: { baseUrl?: string; all?: boolean }): Promise<void> {
  const path = credentialsPath(ctx.io.env);
  const baseUrl = flags.all === true ? undefined : await addressOf(ctx, flags.baseUrl);
  const removed = await removeStoredApiKey(ctx.io.env, baseUrl);
  const which = baseUrl === undefined ? "every stored key" : `the stored key for ${baseUrl}`;
  ctx.out.result("logout", { ok: true, removed, path, baseUrl: baseUrl ?? null }, () => {
    if (removed) ctx.out.success(`removed ${which} (${path})`);
    else ctx.out.info(`no stored key ${baseUrl === undefined ? "" : `for ${baseUrl} `}(${path})`);
  });
  if (nonEmpty(ctx.io.env["MP_API_KEY"])) ctx.out.warn("MP_API_KEY is still set in this environment: unset it to log out completely");
}

/** The address a key is for: the flag, else the one in effect (.syncrc, MPSYNC_BASE_URL, default). */
async function addressOf(ctx: CommandContext, flag: string | undefined): Promise<string> {
  if (flag !== undefined) {
    if (!URL.canParse(flag))
      throw new MpsyncError("USAGE", `--base-url ${JSON.stringify(flag)} is not a URL`, { hint: "e.g. https://api.magicpatterns.com/api" });
    return addressKey(flag);
  }
  // A broken .syncrc must not block storing a key: the address then comes from the env or the default.
  await ctx.runtime.configIfAny().catch(() => undefined);
  return addressKey(ctx.runtime.baseUrl());
}

async function login(ctx: CommandContext, baseUrlFlag: string | undefined, withToken: boolean): Promise<void> {
  if (withToken && ctx.io.stdin.isTTY === true) {
    throw new MpsyncError("USAGE", "--with-token reads the key from standard input, and that is a terminal here", {
      hint: "pipe it: printenv KEY | mpsync login --with-token; or run mpsync login to type it hidden",
    });
  }
  const key = (withToken ? await readFirstLine(ctx.io.stdin) : await readSecret(ctx.io, "API key (input hidden): ")).trim();
  if (key === "")
    throw new MpsyncError("USAGE", "no API key given: nothing was saved", { hint: "paste the key from your account settings, or pipe it on stdin" });
  const baseUrl = await addressOf(ctx, baseUrlFlag);
  // A client of its own: the runtime's client is bound to the key already in effect.
  const client = createClient({ baseUrl, apiKey: key });
  const started = ctx.runtime.clock.monotonic();
  try {
    await client.health();
  } catch (err) {
    if (hasCode(err, "UNAUTHORIZED", "FORBIDDEN")) {
      // A plain MpsyncError, not the ApiError: the CLI then does not add "the key stored for ...",
      // which would blame the stored key for the one just typed.
      throw new MpsyncError("UNAUTHORIZED", `${baseUrl} refused the key you gave: nothing was saved`, {
        hint: "copy the key again from your account settings, API keys",
        cause: err,
      });
    }
    throw err;
  } finally {
    await client.close();
  }
  const latencyMs = ctx.runtime.clock.monotonic() - started;
  const path = await storeApiKey(key, ctx.io.env, baseUrl);
  ctx.out.result("login", { ok: true, path, baseUrl, latencyMs }, () => ctx.out.success(`key accepted by ${baseUrl} and saved to ${path}`));
  if (nonEmpty(ctx.io.env["MP_API_KEY"])) ctx.out.warn("MP_API_KEY is set in this environment and wins over the stored key");
}

function nonEmpty(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}
