/**
 * A live preview of a real temp folder holding the service's blank scaffold (no daemon: a
 * test's `write` tells the preview of the change as the daemon's change source does, and the
 * tests call `writing`/`settled` as the daemon does), on 127.0.0.1:0, with the toolchain from
 * this repository's dev dependencies. Packages come from the npm registry into one cache
 * folder shared by every test of a run (and kept between runs: npm's own cache and the
 * per-manifest folders make a second run fetch nothing).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { scaffoldFiles } from "../../src/emulator/scaffold.js";
import { DevPreview } from "../../src/preview/dev-preview.js";
import { NpmInstaller, type PackageInstaller } from "../../src/preview/package-installer.js";
import { PreviewFront } from "../../src/preview/preview-front.js";
import { loadToolchain, type Toolchain } from "../../src/preview/toolchain.js";

/** The preview cache every test of a run shares (MPSYNC_TEST_PREVIEW_CACHE, else one in the temp folder). */
export const TEST_PREVIEW_CACHE = process.env["MPSYNC_TEST_PREVIEW_CACHE"] ?? join(tmpdir(), "mpsync-test-preview-cache");

/** A running preview of a temp design. */
export interface PreviewWorld {
  root: string;
  url: string;
  preview: DevPreview;
  /** Terminal lines the preview said. */
  lines: string[];
  /** Writes a file of the design and reports the change as the daemon's change source does. */
  write(rel: string, text: string): Promise<void>;
  close(): Promise<void>;
}

let tools: Promise<Toolchain> | undefined;

/** Starts a preview of the blank scaffold (plus `files`; `null` removes a scaffold file) and waits until it is ready or unavailable. */
export async function startPreview(
  options: { files?: Record<string, string | null>; installer?: PackageInstaller; cacheDir?: string } = {},
): Promise<PreviewWorld> {
  const base = await mkdtemp(join(tmpdir(), "mpsync-preview-"));
  const root = join(base, "design");
  const lines: string[] = [];
  const put = async (rel: string, text: string): Promise<void> => {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), text);
  };
  await mkdir(root);
  for (const [rel, text] of scaffoldFiles("Preview test")) if (options.files?.[rel] !== null) await put(rel, text);
  for (const [rel, text] of Object.entries(options.files ?? {})) if (text !== null) await put(rel, text);
  tools ??= loadToolchain({ cacheDir: undefined, installer: new NpmInstaller() });
  const front = new PreviewFront();
  const port = await front.listen(0);
  const preview = new DevPreview({
    root,
    front,
    cacheDir: options.cacheDir ?? TEST_PREVIEW_CACHE,
    installer: options.installer ?? new NpmInstaller({ env: quietNpmEnv() }),
    tools: () => tools!,
    say: (line) => lines.push(line),
  });
  await preview.start();
  return {
    root,
    url: `http://127.0.0.1:${port}/`,
    preview,
    lines,
    async write(rel, text) {
      await put(rel, text);
      preview.localChange(rel);
    },
    async close() {
      await preview.close();
      await front.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** npm's environment for tests: quiet. */
export function quietNpmEnv(): NodeJS.ProcessEnv {
  return { ...process.env, npm_config_update_notifier: "false", npm_config_loglevel: "error" };
}
