/**
 * A module-loader hook (registered with `node --import`): prints every file URL the process
 * resolves to stderr as `LOADED <url>`, so a test can check what a command loads.
 */
import { register } from "node:module";

if (process.env.MPSYNC_TRACE_HOOK !== "inner") {
  process.env.MPSYNC_TRACE_HOOK = "inner";
  register(import.meta.url);
}

/** Loader hook: reports the resolved URL, changes nothing. */
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith("file:")) process.stderr.write(`LOADED ${resolved.url}\n`);
  return resolved;
}
