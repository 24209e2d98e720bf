import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigInvalidError } from "../../src/config/config-error.js";
import { findConfigFile, loadConfig, type LoadConfigOptions } from "../../src/config/load-config.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();
const mapping = { dir: "web", design: "abcdefghijklmnopqrstuv" };

async function writeJson(file: string, value: unknown): Promise<string> {
  await mkdir(join(file, ".."), { recursive: true });
  await writeFile(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return file;
}

/** The problem lines loadConfig throws with. */
async function problemsOf(options: LoadConfigOptions): Promise<readonly string[]> {
  const error = await loadConfig(options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigInvalidError);
  expect((error as ConfigInvalidError).code).toBe("CONFIG_INVALID");
  return (error as ConfigInvalidError).problems;
}

describe("discovery", () => {
  it("finds .syncrc in a parent folder and resolves dirs against its folder", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { designs: [mapping, { dir: "../other", design: "x1" }] });
    const cwd = join(root, "a", "b");
    await mkdir(cwd, { recursive: true });

    const loaded = await loadConfig({ cwd, env: {} });
    expect(loaded.path).toBe(join(root, ".syncrc"));
    expect(loaded.dir).toBe(root);
    expect(loaded.config.designs).toEqual([
      { ...mapping, root: join(root, "web") },
      { dir: "../other", design: "x1", root: join(root, "..", "other") },
    ]);
    expect(loaded.warnings).toEqual([]);
  });

  it("prefers the nearest folder, and .syncrc over .syncrc.json within one folder (with a warning)", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { designs: [{ dir: "outer", design: "x" }] });
    await writeJson(join(root, "in", ".syncrc.json"), { designs: [{ dir: "json", design: "x" }] });
    expect(await findConfigFile(join(root, "in"))).toBe(join(root, "in", ".syncrc.json"));

    await writeJson(join(root, "in", ".syncrc"), { designs: [{ dir: "rc", design: "x" }] });
    const loaded = await loadConfig({ cwd: join(root, "in"), env: {} });
    expect(loaded.config.designs[0]?.dir).toBe("rc");
    expect(loaded.warnings).toEqual([`both .syncrc and .syncrc.json in ${join(root, "in")}: using .syncrc`]);
  });

  it("skips a folder named .syncrc", async () => {
    const root = await tempDir();
    await mkdir(join(root, "sub", ".syncrc"), { recursive: true });
    await writeJson(join(root, ".syncrc.json"), { designs: [mapping] });
    expect(await findConfigFile(join(root, "sub"))).toBe(join(root, ".syncrc.json"));
  });

  it("reports a missing config", async () => {
    const cwd = await tempDir();
    // Only meaningful when no ancestor of the temp folder holds a .syncrc.
    if ((await findConfigFile(cwd)) !== undefined) return;
    expect(await problemsOf({ cwd, env: {} })).toEqual([`no .syncrc found in ${cwd} or any parent folder: run "mpsync init" or pass --config`]);
  });

  it("takes MPSYNC_CONFIG over the search, and --config over MPSYNC_CONFIG", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { designs: [{ dir: "found", design: "x" }] });
    await writeJson(join(root, "conf", "env.json"), { designs: [{ dir: "env", design: "x" }] });
    await writeJson(join(root, "conf", "flag.json"), { designs: [{ dir: "flag", design: "x" }] });

    const viaEnv = await loadConfig({ cwd: root, env: { MPSYNC_CONFIG: "conf/env.json" } });
    expect(viaEnv.path).toBe(join(root, "conf", "env.json"));
    expect(viaEnv.config.designs[0]?.root).toBe(join(root, "conf", "env"));

    const viaFlag = await loadConfig({ cwd: root, configPath: join(root, "conf", "flag.json"), env: { MPSYNC_CONFIG: "conf/env.json" } });
    expect(viaFlag.config.designs[0]?.dir).toBe("flag");

    const blankEnv = await loadConfig({ cwd: root, env: { MPSYNC_CONFIG: "" } });
    expect(blankEnv.config.designs[0]?.dir).toBe("found");
  });

  it.each([
    { source: "--config", options: (root: string) => ({ configPath: "missing.json", env: {}, cwd: root }) },
    { source: "MPSYNC_CONFIG", options: (root: string) => ({ env: { MPSYNC_CONFIG: "missing.json" }, cwd: root }) },
  ])("reports a missing $source file", async ({ source, options }) => {
    const root = await tempDir();
    expect(await problemsOf(options(root))).toEqual([`${source}: config file ${join(root, "missing.json")} not found`]);
  });

  it("refuses a folder as --config", async () => {
    const root = await tempDir();
    expect(await problemsOf({ cwd: root, configPath: ".", env: {} })).toEqual([`--config: ${root} is not a file`]);
  });
});

describe("errors name the file", () => {
  it.each([
    { text: { designs: [{ dir: 42, design: "x" }] }, line: "designs[0].dir: expected a string, got 42" },
    { text: { designs: [mapping], onConflict: "theirs" }, line: 'onConflict: expected one of "merge", "keep-local", "keep-remote", got "theirs"' },
    { text: { designs: [mapping], pollInterval: 5 }, line: 'unknown key "pollInterval" (did you mean "pollIntervalSec"?)' },
    { text: '{\n  "designs": [\n    {"dir" "x"}\n  ]\n}', line: 'invalid JSON at line 3, column 12: unexpected "\\"", expected ":" after the key' },
  ])("$line", async ({ text, line }) => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), text);
    expect(await problemsOf({ cwd: root, env: {} })).toEqual([`.syncrc: ${line}`]);
    // From a subfolder the file is named by its absolute path.
    await mkdir(join(root, "sub"));
    expect(await problemsOf({ cwd: join(root, "sub"), env: {} })).toEqual([`${join(root, ".syncrc")}: ${line}`]);
  });
});

describe("precedence: defaults < file < env < overrides", () => {
  it("uses the file over defaults and MPSYNC_BASE_URL over the file", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { baseUrl: "https://file.test/api/", designs: [mapping], debounceMs: 10 });
    const fromFile = await loadConfig({ cwd: root, env: {} });
    expect(fromFile.config.baseUrl).toBe("https://file.test/api");
    expect(fromFile.config.debounceMs).toBe(10);
    expect(fromFile.config.concurrency).toBe(4);
    expect(fromFile.config).not.toHaveProperty("$schema");

    const fromEnv = await loadConfig({ cwd: root, env: { MPSYNC_BASE_URL: "http://127.0.0.1:4010/api" } });
    expect(fromEnv.config.baseUrl).toBe("http://127.0.0.1:4010/api");
  });

  it("applies overrides last, merging git key by key", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { designs: [mapping], logLevel: "warn", git: { pauseDuringGitOps: false } });
    const loaded = await loadConfig({
      cwd: root,
      env: { MPSYNC_BASE_URL: "http://localhost:1" },
      overrides: { logLevel: "debug", baseUrl: "http://127.0.0.1:2", git: { commitOnPull: true }, concurrency: undefined },
    });
    expect(loaded.config.logLevel).toBe("debug");
    expect(loaded.config.baseUrl).toBe("http://127.0.0.1:2");
    expect(loaded.config.git).toEqual({ pauseDuringGitOps: false, commitOnPull: true });
    expect(loaded.config.concurrency).toBe(4);
  });

  it("validates MPSYNC_BASE_URL and overrides", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { designs: [mapping] });
    expect(await problemsOf({ cwd: root, env: { MPSYNC_BASE_URL: "api.test" } })).toEqual([
      'MPSYNC_BASE_URL: expected an http:// or https:// URL, got "api.test"',
    ]);
    const overrides = { logLevel: "loud", concurrency: 0 } as unknown as LoadConfigOptions["overrides"];
    expect(await problemsOf({ cwd: root, env: {}, overrides })).toEqual([
      "command line: concurrency: expected an integer from 1 to 32, got 0",
      'command line: logLevel: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent", got "loud"',
    ]);
  });
});

describe("poll floor after the env override", () => {
  it("accepts a fast poll against a loopback MPSYNC_BASE_URL even if the file names the real service", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { baseUrl: "https://api.magicpatterns.com/api", pollIntervalSec: 0.1, designs: [mapping] });
    const loaded = await loadConfig({ cwd: root, env: { MPSYNC_BASE_URL: "http://127.0.0.1:4010/api" } });
    expect(loaded.config.pollIntervalSec).toBe(0.1);
  });

  it("refuses a fast poll against the default baseUrl", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { pollIntervalSec: 5, designs: [mapping] });
    expect(await problemsOf({ cwd: root, env: {} })).toEqual([
      ".syncrc: pollIntervalSec: 5 is below the 60 s floor for https://api.magicpatterns.com/api (only loopback addresses may poll faster)",
    ]);
  });

  it("refuses a fast poll when MPSYNC_BASE_URL moves a loopback file to a real host", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { baseUrl: "http://127.0.0.1:4010", pollIntervalSec: 1, designs: [mapping] });
    expect(await loadConfig({ cwd: root, env: {} })).toBeDefined();
    expect(await problemsOf({ cwd: root, env: { MPSYNC_BASE_URL: "https://staging.example.com/api" } })).toEqual([
      ".syncrc: pollIntervalSec: 1 is below the 60 s floor for https://staging.example.com/api from MPSYNC_BASE_URL (only loopback addresses may poll faster)",
    ]);
  });

  it("refuses a remote content check more often than every 10 s against the service", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { remoteCheckSec: 5, designs: [mapping] });
    expect(await problemsOf({ cwd: root, env: {} })).toEqual([
      ".syncrc: remoteCheckSec: 5 is below the 10 s floor for https://api.magicpatterns.com/api (each check reads every file of the design)",
    ]);
    await writeJson(join(root, ".syncrc"), { baseUrl: "http://127.0.0.1:4010/api", pollIntervalSec: 0.1, remoteCheckSec: 0.1, designs: [mapping] });
    expect((await loadConfig({ cwd: root, env: {} })).config.remoteCheckSec).toBe(0.1);
  });

  it("blames the override when the fast poll comes from it", async () => {
    const root = await tempDir();
    await writeJson(join(root, ".syncrc"), { designs: [mapping] });
    expect(await problemsOf({ cwd: root, env: {}, overrides: { pollIntervalSec: 2 } })).toEqual([
      "command line: pollIntervalSec: 2 is below the 60 s floor for https://api.magicpatterns.com/api (only loopback addresses may poll faster)",
    ]);
  });
});
