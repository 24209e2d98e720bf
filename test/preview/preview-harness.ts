/**
 * A live preview of a real temp folder holding the service's blank scaffold (no daemon: the
 * tests call `writing`/`settled` as the daemon does), on 127.0.0.1:0, with the toolchain from
 * this repository's dev dependencies and a per-test package cache.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { scaffoldFiles } from "../../src/emulator/scaffold.js";
import { DependencyCache } from "../../src/preview/dependency-cache.js";
import { DevPreview } from "../../src/preview/dev-preview.js";
import { NpmInstaller, type PackageInstaller } from "../../src/preview/package-installer.js";
import { loadToolchain, type Toolchain } from "../../src/preview/toolchain.js";

/** A running preview of a temp design. */
export interface PreviewWorld {
  root: string;
  url: string;
  preview: DevPreview;
  cache: DependencyCache;
  /** Terminal lines the preview said. */
  lines: string[];
  write(rel: string, text: string): Promise<void>;
  close(): Promise<void>;
}

let tools: Promise<Toolchain> | undefined;

/** Starts a preview of the blank scaffold (plus `files`). */
export async function startPreview(options: { files?: Record<string, string>; installer?: PackageInstaller; cacheDir?: string } = {}): Promise<PreviewWorld> {
  const base = await mkdtemp(join(tmpdir(), "mpsync-preview-"));
  const root = join(base, "design");
  const lines: string[] = [];
  const write = async (rel: string, text: string): Promise<void> => {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), text);
  };
  await mkdir(root);
  for (const [rel, text] of scaffoldFiles("Preview test")) await write(rel, text);
  for (const [rel, text] of Object.entries(options.files ?? {})) await write(rel, text);
  tools ??= loadToolchain({ cacheDir: undefined, installer: new NpmInstaller() });
  const cache = new DependencyCache({
    dir: options.cacheDir ?? join(base, "cache"),
    installer: options.installer ?? new NpmInstaller({ env: offlineNpmEnv() }),
  });
  const preview = new DevPreview({ root, tools: await tools, cache, say: (line) => lines.push(line), settleMs: 0 });
  await preview.start();
  const port = await preview.listen(0);
  return {
    root,
    url: `http://127.0.0.1:${port}/`,
    preview,
    cache,
    lines,
    write,
    async close() {
      await preview.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** npm's environment for tests: cache-only (no network), quiet. */
export function offlineNpmEnv(): NodeJS.ProcessEnv {
  return { ...process.env, npm_config_offline: "true", npm_config_update_notifier: "false", npm_config_loglevel: "error" };
}

/** `npm pack` of the fixture package into `dest`; resolves to the tarball's path. */
export async function packFixture(dest: string): Promise<string> {
  const source = join(import.meta.dirname, "../fixtures/preview-package");
  await mkdir(dest, { recursive: true });
  await promisify(execFile)("npm", ["pack", "--silent", "--pack-destination", dest], { cwd: source, env: offlineNpmEnv() });
  const tgz = (await readdir(dest)).find((f) => f.endsWith(".tgz"));
  if (tgz === undefined) throw new Error(`npm pack left no tarball in ${dest}`);
  return join(dest, tgz);
}
