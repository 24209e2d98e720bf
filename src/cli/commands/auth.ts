/** `mpsync login` / `mpsync logout`: store or remove the API key (never in .syncrc). */
import { MpsyncError } from "../../core/errors.js";
import { addressKey } from "../../config/credentials.js";
import { fileKeysToMove, loginWithKey, moveFileKeys, removeApiKeys, type FileKeys } from "../../app/api-keys.js";
import type { CommandContext } from "../context.js";
import { readFirstLine, readSecret } from "../read-secret.js";

/** `mpsync login`. */
export async function runLogin(ctx: CommandContext, flags: { baseUrl?: string; withToken?: boolean; moveKeys?: boolean }): Promise<void> {
  if (flags.moveKeys === true) return moveKeys(ctx, await addressOf(ctx, flags.baseUrl));
  return login(ctx, flags.baseUrl, flags.withToken === true);
}

/** `mpsync logout`. */
export async function runLogout(ctx: CommandContext, flags: { baseUrl?: string; all?: boolean }): Promise<void> {
  const baseUrl = flags.all === true ? undefined : await addressOf(ctx, flags.baseUrl);
  const removed = await removeApiKeys(ctx.io.env, baseUrl, ctx.runtime.keychain());
  const which = baseUrl === undefined ? "every stored key" : `the stored key for ${baseUrl}`;
  const from = [removed.keychain, removed.file].filter((where) => where !== undefined);
  const doc = { ok: true as const, removed: from.length > 0, path: removed.path, baseUrl: baseUrl ?? null, from: storesOf(removed) };
  ctx.out.result("logout", doc, () => {
    if (from.length > 0) ctx.out.success(`removed ${which} from ${from.join(" and ")}`);
    else ctx.out.info(`no stored key ${baseUrl === undefined ? "" : `for ${baseUrl} `}(neither in the keychain nor in ${removed.path})`);
  });
  if (nonEmpty(ctx.io.env["MP_API_KEY"])) ctx.out.warn("MP_API_KEY is still set in this environment: unset it to log out completely");
}

function storesOf(removed: { keychain?: string; file?: string }): ("keychain" | "file")[] {
  return [...(removed.keychain === undefined ? [] : ["keychain" as const]), ...(removed.file === undefined ? [] : ["file" as const])];
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
  const keychain = ctx.runtime.keychain();
  const saved = await loginWithKey({ env: ctx.io.env, address: baseUrl, key, keychain, clock: ctx.runtime.clock });
  const where = saved.store === "keychain" ? `saved in ${saved.location}` : `saved to ${saved.location}`;
  const doc = { ok: true as const, baseUrl, store: saved.store, location: saved.location, latencyMs: saved.latencyMs };
  ctx.out.result("login", doc, () => ctx.out.success(`key accepted by ${baseUrl} and ${where}`));
  if (saved.fellBack !== undefined) ctx.out.warn(`${saved.fellBack}: the key is kept in the file instead (mode 0600)`);
  if (nonEmpty(ctx.io.env["MP_API_KEY"])) ctx.out.warn("MP_API_KEY is set in this environment and wins over the stored key");
  if (saved.store === "keychain") await offerMove(ctx, baseUrl, await fileKeysToMove(ctx.io.env, keychain, baseUrl));
}

/** Keys left in the file: asked on a terminal, else one line naming `login --move-keys`. */
async function offerMove(ctx: CommandContext, baseUrl: string, left: FileKeys | undefined): Promise<void> {
  if (left === undefined || ctx.out.opts.json) return;
  const list = [...left.addresses, ...(left.anyAddress ? [`any address (an older mpsync's; it moves as the key for ${baseUrl})`] : [])];
  const names = `${list.length === 1 ? "a key" : "keys"} for ${list.join(", ")}`;
  if (ctx.io.stdin.isTTY !== true) {
    ctx.out.info(`${left.path} still holds ${names}: mpsync login --move-keys moves ${list.length === 1 ? "it" : "them"} into the keychain`);
    return;
  }
  ctx.io.stderr.write(`${left.path} still holds ${names}. Move ${list.length === 1 ? "it" : "them"} into the keychain? [Y/n] `);
  const answer = (await readFirstLine(ctx.io.stdin)).trim().toLowerCase();
  if (answer === "" || answer === "y" || answer === "yes") await moveKeys(ctx, baseUrl);
  else ctx.out.info(`kept in ${left.path}: mpsync login --move-keys moves them later`);
}

async function moveKeys(ctx: CommandContext, baseUrl: string): Promise<void> {
  const moved = await moveFileKeys(ctx.io.env, ctx.runtime.keychain(), baseUrl);
  ctx.out.result("login-move", { ok: true, moved }, () => {
    if (moved.length === 0) ctx.out.info("no key to move: the credentials file holds none");
    else ctx.out.success(`moved into the keychain: the ${moved.length === 1 ? "key" : "keys"} for ${moved.join(", ")}`);
  });
}

function nonEmpty(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}
