/**
 * Publish-time compilation: every script and stylesheet of an artifact goes through esbuild's
 * `transform` (no bundling, so imports of packages the emulator does not have are fine).
 * esbuild is a development dependency (a large native binary users of the sync tool do not
 * need): it is loaded on the first publish, from mpsync's own modules or else from the folder the
 * emulator runs in (an installed mpsync has no esbuild beside it, and `npm install esbuild`
 * there is what a user can do); without it publish accepts the artifact unchecked and says so.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
type Loader = "ts" | "tsx" | "js" | "jsx" | "css";
interface Message {
  text: string;
  location: { line: number; column: number } | null;
}
type Transform = (code: string, options: { loader: Loader; sourcefile: string; logLevel: "silent" }) => Promise<unknown>;

const LOADERS: Readonly<Record<string, Loader>> = {
  ".ts": "ts",
  ".tsx": "tsx",
  ".js": "js",
  ".jsx": "jsx",
  ".css": "css",
};

/** esbuild's transform, or undefined when esbuild is installed neither beside mpsync nor in `dir`. */
async function loadTransform(dir: string | undefined): Promise<Transform | undefined> {
  try {
    return ((await import("esbuild")) as { transform: Transform }).transform;
  } catch {
    if (dir === undefined) return undefined;
  }
  try {
    const path = createRequire(join(dir, "package.json")).resolve("esbuild");
    return ((await import(pathToFileURL(path).href)) as { transform: Transform }).transform;
  } catch {
    return undefined;
  }
}

/** What a publish says when nothing was compiled: esbuild is missing, and where installing it helps. */
export function notCheckedWarning(dir: string | undefined): string {
  const where = dir === undefined ? "npm install esbuild beside mpsync" : `npm install esbuild in ${dir}, then restart mpsync emulator`;
  return `not compile-checked: esbuild is not installed where the emulator runs (${where})`;
}

/** Outcome of compiling an artifact: ok, or the first error as `<file>:<line>:<column>: <message>`. */
export type CompileResult = { ok: true; unchecked?: boolean } | { ok: false; error: string };

/** The esbuild loader for a file name, or undefined when the file is not compiled. */
export function loaderFor(fileName: string): Loader | undefined {
  const dot = fileName.lastIndexOf(".");
  return dot < 0 ? undefined : LOADERS[fileName.slice(dot).toLowerCase()];
}

/** Compiles every compilable file; stops at the first failing file (in file order). */
export async function compileFiles(
  files: ReadonlyMap<string, string>,
  options: { check?: boolean; esbuildDir?: string | undefined } = {},
): Promise<CompileResult> {
  const transform = options.check === false ? undefined : await loadTransform(options.esbuildDir);
  if (transform === undefined) return { ok: true, unchecked: true };
  for (const [name, code] of files) {
    const loader = loaderFor(name);
    if (loader === undefined) continue;
    try {
      await transform(code, { loader, sourcefile: name, logLevel: "silent" });
    } catch (err) {
      return { ok: false, error: describeFailure(name, err) };
    }
  }
  return { ok: true };
}

function describeFailure(fileName: string, err: unknown): string {
  const first = (err as { errors?: Message[] }).errors?.[0];
  if (first === undefined) return `${fileName}: ${err instanceof Error ? err.message : String(err)}`;
  const location = first.location;
  // esbuild columns are 0-based; editors and tsc print 1-based ones.
  const where = location === null ? fileName : `${fileName}:${location.line}:${location.column + 1}`;
  return `${where}: ${first.text}`;
}
