/**
 * The package installer is a port; its real implementation runs the user's npm. Here it
 * installs a package packed from a local fixture (npm pack) into a real cache folder, offline,
 * and the cache pins it, shares one install between askers, and says why a package cannot be had.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DependencyCache, packageNameOf, previewCacheDir } from "../../src/preview/dependency-cache.js";
import { NpmInstaller, npmReason, type PackageInstaller } from "../../src/preview/package-installer.js";
import { offlineNpmEnv, packFixture } from "./preview-harness.js";

let base: string;
let tarball: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "mpsync-pkgcache-"));
  tarball = await packFixture(join(base, "packed"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("NpmInstaller with the real npm, no network", () => {
  it("installs a packed package into the cache, pinned in package.json and the lock", async () => {
    const cache = new DependencyCache({ dir: join(base, "cache-a"), installer: new NpmInstaller({ env: offlineNpmEnv() }) });
    expect(cache.has("mpsync-fixture-badge")).toBe(false);
    await cache.ensure("mpsync-fixture-badge", tarball);
    expect(cache.has("mpsync-fixture-badge")).toBe(true);
    const manifest = JSON.parse(await readFile(join(cache.dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(manifest.dependencies["mpsync-fixture-badge"]).toContain("mpsync-fixture-badge-1.2.3.tgz");
    const lock = JSON.parse(await readFile(join(cache.dir, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string }> };
    expect(lock.packages["node_modules/mpsync-fixture-badge"]?.version).toBe("1.2.3");
    // Peer dependencies are not installed: React comes from the preview's toolchain.
    expect(existsSync(join(cache.dir, "node_modules", "react"))).toBe(false);
    expect(existsSync(join(cache.dir, "install.lock"))).toBe(false);
  });

  it("a package npm cannot get is a one-line reason, not npm's log", async () => {
    const cache = new DependencyCache({ dir: join(base, "cache-b"), installer: new NpmInstaller({ env: offlineNpmEnv() }) });
    const err = await cache.ensure("mpsync-no-such-package-3f9a").then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/^npm install mpsync-no-such-package-3f9a failed: /);
    expect(err?.message.split("\n")).toHaveLength(1);
    expect(cache.has("mpsync-no-such-package-3f9a")).toBe(false);
  });
});

describe("DependencyCache", () => {
  it("one install serves every asker at once, and a held lock of a live process is waited for", async () => {
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const installer: PackageInstaller = {
      async install(dir, specs) {
        calls.push([...specs]);
        await gate;
        const { mkdir } = await import("node:fs/promises");
        await mkdir(join(dir, "node_modules", "pkg-a"), { recursive: true });
        await writeFile(join(dir, "node_modules", "pkg-a", "package.json"), "{}");
      },
    };
    const cache = new DependencyCache({ dir: join(base, "cache-c"), installer });
    const both = Promise.all([cache.ensure("pkg-a"), cache.ensure("pkg-a")]);
    release();
    await both;
    expect(calls).toEqual([["pkg-a"]]);
  });

  it("a lock left by a dead process is taken over", async () => {
    const dir = join(base, "cache-d");
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "install.lock"), "999999999\n");
    const installer: PackageInstaller = {
      async install(d) {
        await mkdir(join(d, "node_modules", "pkg-b"), { recursive: true });
        await writeFile(join(d, "node_modules", "pkg-b", "package.json"), "{}");
      },
    };
    await new DependencyCache({ dir, installer }).ensure("pkg-b");
    expect(existsSync(join(dir, "install.lock"))).toBe(false);
  });

  it.each([
    ["lucide-react", "lucide-react"],
    ["lodash/get", "lodash"],
    ["@radix-ui/react-dialog", "@radix-ui/react-dialog"],
    ["@scope/pkg/sub/path", "@scope/pkg"],
    ["node:fs", undefined],
    ["", undefined],
  ])("packageNameOf(%j) is %j", (specifier, name) => {
    expect(packageNameOf(specifier)).toBe(name);
  });

  it("lives in the user's cache folder unless MPSYNC_PREVIEW_CACHE says otherwise", () => {
    expect(previewCacheDir({ MPSYNC_PREVIEW_CACHE: "/x/cache" })).toBe("/x/cache");
    expect(previewCacheDir({ XDG_CACHE_HOME: "/c", MPSYNC_CODE_CACHE: "0" })).toBe(
      process.platform === "linux" ? "/c/mpsync/preview" : previewCacheDir({ XDG_CACHE_HOME: "/c" }),
    );
  });

  it("npmReason keeps the telling line", () => {
    expect(
      npmReason(
        "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope - Not found\nnpm error A complete log of this run can be found in: /x.log\n",
      ),
    ).toBe("404 Not Found - GET https://registry.npmjs.org/nope - Not found");
  });
});
