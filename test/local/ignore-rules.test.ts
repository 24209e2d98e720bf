import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createIgnoreMatcher, loadIgnoreMatcher } from "../../src/local/ignore-rules.js";
import { makeTempDir } from "../support/temp-dir.js";

describe("createIgnoreMatcher: built-in rules", () => {
  const m = createIgnoreMatcher({ patterns: [] });
  it.each([
    [".git", true],
    ["src", false],
    ["node_modules", true],
    ["a/node_modules", true],
    [".mpsync", true],
    ["src/.mpsync", true],
  ])("folder %s ignored=%s", (rel, expected) => {
    expect(m.ignores(rel, true)).toBe(expected);
  });

  it.each([
    [".git/HEAD", true],
    ["node_modules/react/index.js", true],
    [".mpsync/state.json", true],
    [".DS_Store", true],
    ["src/.DS_Store", true],
    [".App.tsx.swp", true],
    ["a/.x.swo", true],
    [".x.swx", true],
    ["App.tsx~", true],
    [".#App.tsx", true],
    ["#App.tsx#", true],
    ["src/#App.tsx#", true],
    ["4913", true],
    ["src/4913", true],
    ["App.tsx.crswap", true],
    ["App.tsx.tmp.1234", true],
    [".App.tsx.a1b2c3.mpsync.tmp", true],
    ["notes.tmp", true],
    [".~lock.doc.odt#", true],
    ["App.tsx___jb_tmp___", true],
    ["App.tsx", false],
    ["components/Button.tsx", false],
    ["index.css", false],
    ["49134", false],
    ["tmp/file.ts", false],
    ["a#b", false],
    [".gitignore", false],
    // The user's own file: never pushed, never pulled (the service cannot switch sync off).
    [".syncignore", true],
    ["src/.syncignore", false],
    // Secrets never leave the machine.
    [".env", true],
    [".env.local", true],
    ["server/.env.production", true],
    ["certs/dev.pem", true],
    ["id_rsa.key", true],
    [".npmrc", true],
    ["env.ts", false],
    ["keyboard.tsx", false],
  ])("file %s ignored=%s", (rel, expected) => {
    expect(m.ignores(rel)).toBe(expected);
  });

  it("never ignores the root and tolerates ./ and trailing slashes", () => {
    expect(m.ignores("")).toBe(false);
    expect(m.ignores(".")).toBe(false);
    expect(m.ignores("./node_modules/x.js")).toBe(true);
    expect(m.ignores("node_modules/", true)).toBe(true);
  });
});

describe("createIgnoreMatcher: user rules", () => {
  it("a user can re-include a secret-looking file with !pattern, but not .mpsync/", () => {
    const m = createIgnoreMatcher({ patterns: ["!.env.example"], syncignoreText: "!certs/public.pem\n!.mpsync/\n" });
    expect(m.ignores(".env.example")).toBe(false);
    expect(m.ignores("certs/public.pem")).toBe(false);
    expect(m.ignores(".env")).toBe(true);
    expect(m.ignores(".mpsync/state.json")).toBe(true);
  });

  it("adds config patterns and .syncignore text", () => {
    const m = createIgnoreMatcher({ patterns: ["dist/", "*.log"], syncignoreText: "# comment\nsecret.txt\n" });
    expect(m.ignores("dist", true)).toBe(true);
    expect(m.ignores("dist/app.js")).toBe(true);
    expect(m.ignores("logs/a.log")).toBe(true);
    expect(m.ignores("secret.txt")).toBe(true);
    expect(m.ignores("src/App.tsx")).toBe(false);
  });

  it("a negation cannot re-include a built-in rule", () => {
    const m = createIgnoreMatcher({ patterns: ["!.mpsync/", "!node_modules/", "!*.swp"] });
    expect(m.ignores(".mpsync/state.json")).toBe(true);
    expect(m.ignores("node_modules", true)).toBe(true);
    expect(m.ignores(".a.swp")).toBe(true);
  });

  it("a negation works among user rules", () => {
    const m = createIgnoreMatcher({ patterns: ["*.md", "!README.md"] });
    expect(m.ignores("NOTES.md")).toBe(true);
    expect(m.ignores("README.md")).toBe(false);
  });
});

describe("loadIgnoreMatcher", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => cleanup?.());

  it("reads .syncignore when present", async () => {
    const tmp = await makeTempDir("ignore");
    cleanup = tmp.cleanup;
    await writeFile(join(tmp.dir, ".syncignore"), "drafts/\n");
    const m = await loadIgnoreMatcher(tmp.dir, ["*.bak"]);
    expect(m.ignores("drafts/a.tsx")).toBe(true);
    expect(m.ignores("a.bak")).toBe(true);
    expect(m.ignores("a.tsx")).toBe(false);
  });

  it("works without .syncignore", async () => {
    const tmp = await makeTempDir("ignore");
    cleanup = tmp.cleanup;
    const m = await loadIgnoreMatcher(tmp.dir, []);
    expect(m.ignores("a.tsx")).toBe(false);
    expect(m.ignores(".git", true)).toBe(true);
  });
});
