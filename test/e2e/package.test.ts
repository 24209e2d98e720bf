/**
 * The published package as a user gets it: `npm pack` of the built tree holds the files a user
 * needs and no others, the README read on the registry's page links only to what resolves
 * there, and the unpacked package runs `--help` and loads as a library from an empty folder
 * (its dependencies are the repository's own node_modules: no registry is asked).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBuildInputs, readStampTime, staleReason } from "../../scripts/dist-freshness.mjs";
import { makeTempDir } from "../support/temp-dir.js";

const REPO = join(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  engines: { node: string };
  scripts: Record<string, string>;
};
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

let temp: { dir: string; cleanup: () => Promise<void> };
let files: string[];
let unpacked: string;

beforeAll(async () => {
  temp = await makeTempDir("package");
  // dist/ is fresh (the e2e project's global setup): packing runs no build script.
  const pack = spawnSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", temp.dir], { cwd: REPO, encoding: "utf8" });
  expect(pack.status, pack.stderr).toBe(0);
  expect(pack.stderr.split("\n").filter((l) => /\bwarn\b/i.test(l))).toEqual([]);
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  files = (info?.files ?? []).map((f) => f.path).sort();
  const tar = spawnSync("tar", ["-xzf", join(temp.dir, info?.filename ?? ""), "-C", temp.dir], { encoding: "utf8" });
  expect(tar.status, tar.stderr).toBe(0);
  unpacked = join(temp.dir, "package");
  symlinkSync(join(REPO, "node_modules"), join(unpacked, "node_modules"), "dir");
}, 120_000);
afterAll(async () => {
  await temp?.cleanup();
});

describe("the package", () => {
  it("holds the command, the library, the schemas, the README's files and the license, and no build or test leftovers", () => {
    for (const needed of [
      ...Object.values(pkg.bin),
      "dist/cli.cjs",
      "dist/index.js",
      "dist/index.d.ts",
      "LICENSE",
      "README.md",
      "syncrc.schema.json",
      "json-output.schema.json",
      ".syncrc.example",
    ]) {
      expect(files).toContain(needed);
    }
    const leftovers = files.filter((f) => /\.map$|\.test\.|^src\/|^test\/|^scripts\/|\.build-stamp$|cli\.inputs\.json$|^dist\/(bin|main)\.js$/.test(f));
    expect(leftovers).toEqual([]);
  });

  it("has a README whose links resolve on the registry's page: absolute, and those into the package name packed files", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "");
    expect(links.filter((l) => !/^https?:\/\//.test(l) && !l.startsWith("#"))).toEqual([]);
    const intoPackage = links.flatMap((l) => /^https:\/\/unpkg\.com\/(?:browse\/)?mpsync\/(.+)$/.exec(l)?.[1] ?? []);
    expect(intoPackage.length).toBeGreaterThan(0);
    for (const path of intoPackage)
      expect(
        files.some((f) => (path.endsWith("/") ? f.startsWith(path) : f === path)),
        path,
      ).toBe(true);
  });

  it("has a README that names the install line and the supported Node versions", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    expect(readme).toContain(`npm install -g ${pkg.name}`);
    const minimum = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
    expect(readme).toContain(`Node ${minimum} or later; CI runs the whole test suite on Node 20 and 24`);
  });

  // Two Node processes: at a load of 20+ on two cores each may wait for a core for seconds.
  it("runs --help from an empty folder, and loads as a library", { timeout: 120_000 }, () => {
    const empty = join(temp.dir, "empty");
    mkdirSync(empty);
    const env = { ...process.env, NO_COLOR: "1", MPSYNC_CODE_CACHE: "0" };
    const help = spawnSync(process.execPath, [join(unpacked, pkg.bin.mpsync ?? ""), "--help"], { cwd: empty, env, encoding: "utf8" });
    expect(help.stderr).toBe("");
    expect(help.stdout.split("\n")[0]).toBe("Usage: mpsync [options] [command]");
    const entry = JSON.stringify(join(unpacked, "dist", "index.js"));
    const lib = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", `const m = await import(${entry}); console.log(typeof m.createClient, typeof m.createRequestQueue)`],
      {
        cwd: empty,
        encoding: "utf8",
      },
    );
    expect(lib.stderr).toBe("");
    expect(lib.stdout.trim()).toBe("function function");
  });

  it("`npm run demo` builds only a stale dist/: right after a build, it finds none", async () => {
    expect(pkg.scripts.demo).toBe("node scripts/demo.mjs");
    expect(staleReason(await readStampTime(REPO), await readBuildInputs(REPO))).toBeUndefined();
  });
});
