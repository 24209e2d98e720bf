/**
 * Whether dist/ was built from the build's inputs as they are now. `npm run build`
 * (scripts/build.mjs) writes `dist/.build-stamp` last, dated when the build began; an input
 * modified after that date may be missing from dist/. Deleting or renaming a source changes its
 * folder's time, so folders count as inputs too (adding a test file beside the code does as well:
 * one needless rebuild rather than a stale CLI). The e2e tests' global setup
 * (test/support/build-if-stale.ts) and `npm run demo` (scripts/demo.mjs) ask it; its types are
 * in dist-freshness.d.mts.
 */
import { readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";

/** The stamp `npm run build` writes last, relative to the repository. */
export const BUILD_STAMP = "dist/.build-stamp";

/** Files outside `src/` whose change changes dist/ (compiler settings, the build scripts, bundled dependencies). */
const BUILD_FILES = ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "scripts/build.mjs", "scripts/bundle-cli.mjs"];

/**
 * Why dist/ is stale, or undefined when it is fresh: no stamp (`stampMs` undefined: never built,
 * or the last build failed), or the newest input modified after the build began.
 */
export function staleReason(stampMs, inputs) {
  if (stampMs === undefined) return `${BUILD_STAMP} is missing (never built, or the last build failed)`;
  let newest;
  for (const input of inputs) {
    if (input.mtimeMs > stampMs && (newest === undefined || input.mtimeMs > newest.mtimeMs)) newest = input;
  }
  return newest === undefined ? undefined : `${newest.path} changed after the last build`;
}

/** The modification time of the build stamp, undefined when there is none. */
export async function readStampTime(repo) {
  return (await statIfThere(join(repo, BUILD_STAMP)))?.mtimeMs;
}

/** Every build input's time: `src/` (its folders and its `.ts` files but tests) and the build files. */
export async function readBuildInputs(repo) {
  const inputs = [];
  const visit = async (dir) => {
    const entries = await readdir(dir, { withFileTypes: true });
    inputs.push({ path: relative(repo, dir), mtimeMs: (await stat(dir)).mtimeMs });
    await Promise.all(
      entries.map(async (entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return visit(path);
        if (!entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) return;
        inputs.push({ path: relative(repo, path), mtimeMs: (await stat(path)).mtimeMs });
      }),
    );
  };
  await visit(join(repo, "src"));
  for (const file of BUILD_FILES) {
    const found = await statIfThere(join(repo, file));
    if (found !== undefined) inputs.push({ path: file, mtimeMs: found.mtimeMs });
  }
  return inputs;
}

/**
 * Runs `build` when dist/ is stale and says why on one line; throws one line when the build
 * fails. Returns the reason it built, or undefined when dist/ was fresh.
 */
export async function buildIfStale(repo, build, say) {
  const reason = staleReason(await readStampTime(repo), await readBuildInputs(repo));
  if (reason === undefined) return undefined;
  say(`dist/ is stale (${reason}): building it first (npm run build)`);
  const status = build();
  if (status !== 0) throw new Error(`dist/ is stale (${reason}) and npm run build failed (exit ${status}): fix the build, then run the tests again`);
  return reason;
}

async function statIfThere(path) {
  try {
    return await stat(path);
  } catch (error) {
    if (error?.code === "ENOENT") return undefined;
    throw error;
  }
}
