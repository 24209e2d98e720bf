/**
 * Package folders of the preview cache: keyed by the manifest (two designs naming the same
 * packages share one), installed once however many ask, a lock of a dead process taken over,
 * a design's package.json read as the service reads it. The installer is a stand-in here;
 * the real npm runs in the browser suite.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designPackages, readDesignManifest } from "../../src/preview/design-packages.js";
import { manifestKey, packageNameOf, PackageFolder, previewCacheDir } from "../../src/preview/package-folder.js";
import { npmReason, type PackageInstaller } from "../../src/preview/package-installer.js";
import { RUNTIME_VERSIONS } from "../../src/preview/runtime-versions.js";

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "mpsync-pkgfolder-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Installs by writing each named package's package.json. */
const fakeInstaller = (calls: string[][], gate?: Promise<void>): PackageInstaller => ({
  async install(dir, specs) {
    calls.push([...specs]);
    await gate;
    const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    for (const name of specs.length === 0 ? Object.keys(manifest.dependencies) : specs.map((s) => s.replace(/(.)@.*$/, "$1"))) {
      await mkdir(join(dir, "node_modules", name), { recursive: true });
      await writeFile(join(dir, "node_modules", name, "package.json"), "{}");
    }
  },
});

describe("PackageFolder", () => {
  it("installs the manifest once for every asker, then adds a package on demand", async () => {
    const calls: string[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const folder = new PackageFolder({ dir: join(base, "a"), dependencies: { react: "18.3.1" }, installer: fakeInstaller(calls, gate) });
    const both = Promise.all([folder.ensureInstalled(), folder.ensureInstalled()]);
    release();
    await both;
    expect(calls).toEqual([[]]);
    expect(folder.installed).toBe(true);
    await folder.add("lucide-react", "lucide-react@0.522.0");
    expect(calls).toEqual([[], ["lucide-react@0.522.0"]]);
    expect(existsSync(join(folder.dir, "install.lock"))).toBe(false);
  });

  it("a lock left by a dead process is taken over", async () => {
    const dir = join(base, "b");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "install.lock"), "999999999\n");
    await new PackageFolder({ dir, dependencies: { x: "1.0.0" }, installer: fakeInstaller([]) }).ensureInstalled();
    expect(existsSync(join(dir, "install.lock"))).toBe(false);
  });

  it("the key is the manifest's packages and versions, not their order", () => {
    expect(manifestKey({ a: "1", b: "2" })).toBe(manifestKey({ b: "2", a: "1" }));
    expect(manifestKey({ a: "1" })).not.toBe(manifestKey({ a: "2" }));
  });
});

describe("a design's packages", () => {
  it("no package.json: the runtime's React, from a folder shared by every such design", async () => {
    const root = join(base, "scaffold");
    await mkdir(root, { recursive: true });
    const m = readDesignManifest(root);
    expect(m).toMatchObject({ fromDesign: false, dependencies: { react: RUNTIME_VERSIONS["react"], "react-dom": RUNTIME_VERSIONS["react-dom"] } });
    expect(designPackages(root, "/cache", fakeInstaller([])).dir).toBe(join("/cache", "packages", manifestKey(m.dependencies)));
  });

  it("a package.json: its dependencies and its Tailwind plugins, not its build tools; its Tailwind major", async () => {
    const root = join(base, "export");
    await mkdir(root, { recursive: true });
    await writeFile(
      join(root, "package.json"),
      JSON.stringify({
        dependencies: { react: "^18.3.1", recharts: "^2.12.0" },
        devDependencies: { vite: "^5.2.0", tailwindcss: "3.4.17", "tailwindcss-animate": "^1.0.7" },
      }),
    );
    expect(readDesignManifest(root)).toMatchObject({
      fromDesign: true,
      tailwindMajor: 3,
      dependencies: { react: "^18.3.1", "react-dom": "18.3.1", recharts: "^2.12.0", "tailwindcss-animate": "^1.0.7" },
    });
    expect(readDesignManifest(root).dependencies["vite"]).toBeUndefined();
  });

  it("a package.json that is not JSON is said, and the runtime's versions are used", async () => {
    const root = join(base, "broken");
    await mkdir(root, { recursive: true });
    await writeFile(join(root, "package.json"), "{ nope");
    expect(readDesignManifest(root)).toMatchObject({ fromDesign: false, problem: expect.stringMatching(/^package\.json is not valid JSON/) as unknown });
  });

  it("a design with its own node_modules uses it as is", async () => {
    const root = join(base, "own");
    await mkdir(join(root, "node_modules"), { recursive: true });
    expect(designPackages(root, "/cache", fakeInstaller([]))).toMatchObject({ dir: root, folder: undefined });
  });
});

describe("names and reasons", () => {
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

  it("the cache lives in the user's cache folder unless MPSYNC_PREVIEW_CACHE says otherwise", () => {
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
