/**
 * The preview's toolchain is found beside mpsync, or installed once into the cache through the
 * installer port (here a stand-in that links this repository's node_modules: no network).
 */
import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { manifestKey } from "../../src/preview/package-folder.js";
import type { PackageInstaller } from "../../src/preview/package-installer.js";
import { loadToolchain, TOOLCHAIN_SPECS } from "../../src/preview/toolchain.js";

const REPO_MODULES = join(import.meta.dirname, "../../node_modules");
let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("loadToolchain", () => {
  it("takes the toolchain beside mpsync without installing anything", async () => {
    const installer: PackageInstaller = { install: () => Promise.reject(new Error("must not install")) };
    const tools = await loadToolchain({ cacheDir: undefined, installer });
    expect(tools.from).toContain("node_modules/vite");
    expect(typeof tools.vite.createServer).toBe("function");
    expect(typeof tools.react).toBe("function");
  });

  it("installs the pinned toolchain into the cache on the first run only", async () => {
    dir = await mkdtemp(join(tmpdir(), "mpsync-toolchain-"));
    const calls: string[][] = [];
    const installer: PackageInstaller = {
      async install(into, specs) {
        calls.push([...specs]);
        await symlink(REPO_MODULES, join(into, "node_modules"));
      },
    };
    const said: string[] = [];
    const options = {
      cacheDir: dir,
      installer,
      besideMpsync: join(dir, "nowhere", "x.js"),
      onInstall: (specs: readonly string[]) => said.push(specs.join(" ")),
    };
    const first = await loadToolchain(options);
    // One npm run of the toolchain's own manifest (its package.json names the pinned versions).
    expect(calls).toEqual([[]]);
    expect(JSON.parse(await readFile(join(dir, "toolchain", manifestKey(TOOLCHAIN_SPECS), "package.json"), "utf8")).dependencies).toEqual(TOOLCHAIN_SPECS);
    expect(said).toHaveLength(1);
    expect(typeof first.tailwind).toBe("function");
    await loadToolchain(options);
    expect(calls).toHaveLength(1);
  });

  it("no toolchain and no cache folder is a clear error", async () => {
    const installer: PackageInstaller = { install: () => Promise.resolve() };
    await expect(loadToolchain({ cacheDir: undefined, installer, besideMpsync: "/nonexistent/x.js" })).rejects.toThrow(/no cache folder/);
  });
});
