/**
 * Global setup of the vitest `e2e` project (vitest.config.ts): the tests there spawn or import the
 * built CLI, so a `dist/` older than its sources is rebuilt first instead of being tested
 * silently. After `npm run build` (as in `npm test`) this is one stat of each input. It provides
 * `builtCliChecked`, which the built-CLI harness (`assertBuilt`, test/e2e/helpers.ts) requires,
 * so a test outside the project that runs dist/ fails with one line saying where it belongs.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { buildIfStale } from "../../scripts/dist-freshness.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** Set by this setup once dist/ is known fresh. */
    builtCliChecked: boolean;
  }
}

const REPO = join(import.meta.dirname, "../..");

/** Builds dist/ when a build input changed after the last build. */
export async function setup(project: TestProject): Promise<void> {
  const build = () => spawnSync(process.execPath, [join(REPO, "scripts/build.mjs")], { cwd: REPO, stdio: "inherit" }).status;
  await buildIfStale(REPO, build, (line) => console.error(line));
  project.provide("builtCliChecked", true);
}
