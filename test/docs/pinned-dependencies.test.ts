/**
 * Dependencies are pinned to exact versions, and what is installed and locked is what is
 * pinned: mpsync uses each through its public API only, and a version that moved without a
 * deliberate update (package.json, package-lock.json and node_modules changed together, by
 * `npm install --save-exact pkg@ver`) fails here before it reaches a user.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const read = (path: string): Record<string, unknown> => JSON.parse(readFileSync(join(ROOT, path), "utf8")) as Record<string, unknown>;
const pkg = read("package.json") as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const lock = read("package-lock.json") as { packages: Record<string, { version?: string }> };
const pins = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies });

describe("pinned dependencies", () => {
  it("every dependency is pinned to one exact version", () => {
    expect(pins.filter(([, version]) => !/^\d+\.\d+\.\d+$/.test(version))).toEqual([]);
  });

  it.each(pins)("%s: the locked and the installed version are the pinned %s", (name, version) => {
    expect(lock.packages[`node_modules/${name}`]?.version).toBe(version);
    expect(read(`node_modules/${name}/package.json`).version).toBe(version);
  });
});
