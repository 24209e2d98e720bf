/**
 * `mpsync history export` against the real emulator and real git: one commit per version,
 * oldest first, with dates and messages from the versions; HEAD, the index and the work tree
 * untouched; re-runs add only new versions.
 */
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../support/harness.js";
import { git, initRepo, runMpsync, stagedPaths, subjects, treeFingerprint } from "./git-fixtures.js";

interface ExportDoc {
  ok: boolean;
  branch: string;
  added: { versionLabel: string; sha: string }[];
  skipped: number;
  refused: { versionLabel: string; name: string; reason: string }[];
}

let h: Harness;

beforeEach(async () => {
  h = await startHarness({ syncrc: { logLevel: "warn" } });
});
afterEach(async () => h.close());

async function setUpRepo(): Promise<void> {
  initRepo(h.home);
  await writeFile(join(h.home, ".gitignore"), ".xdg-state/\n.xdg-config/\n");
  await writeFile(join(h.home, "notes.txt"), "first\n");
  git(h.home, "add", ".gitignore", ".syncrc", "notes.txt");
  git(h.home, "commit", "-q", "-m", "initial");
}

function generate(prompt: string): void {
  h.emu.control.startGeneration(h.editorId, prompt);
  h.emu.control.finishGeneration(h.editorId);
}

async function exportJson(...extra: string[]): Promise<ExportDoc> {
  const run = await runMpsync(["history", "export", "--json", ...extra], h.home, h.env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ExportDoc;
}

/** Everything the export must leave alone: HEAD, the branch it names, the index file, the work tree. */
async function repoSnapshot() {
  return {
    head: git(h.home, "rev-parse", "HEAD"),
    branch: git(h.home, "symbolic-ref", "HEAD"),
    index: createHash("sha256")
      .update(await readFile(join(h.home, ".git", "index")))
      .digest("hex"),
    staged: stagedPaths(h.home),
    tree: await treeFingerprint(h.home),
  };
}

describe("mpsync history export", () => {
  it("replays every version, oldest first, without touching HEAD, the index or the work tree", async () => {
    await setUpRepo();
    expect((await runMpsync(["pull"], h.home, h.env)).code).toBe(0);
    generate("make the header sticky");
    generate("add a footer");
    // Unrelated staged work and a local edit must survive untouched.
    await writeFile(join(h.home, "notes.txt"), "staged\n");
    git(h.home, "add", "notes.txt");
    await h.writeLocal("App.tsx", "// local edit\n");
    const before = await repoSnapshot();

    const doc = await exportJson();

    expect(await repoSnapshot()).toEqual(before);
    const versions = h.emu.control.getDesign(h.editorId).versions;
    expect(doc.branch).toBe("design-history");
    expect(doc.skipped).toBe(0);
    expect(doc.added.map((a) => a.versionLabel)).toEqual(["v1", "v2", "v3"]);
    expect(subjects(h.home, "design-history")).toEqual(["design: v1 Initial version", "design: v2 make the header sticky", "design: v3 add a footer"]);
    const shas = git(h.home, "rev-list", "--reverse", "design-history").split("\n");
    expect(shas).toEqual(doc.added.map((a) => a.sha));
    versions.forEach((v, i) => {
      const sha = shas[i] ?? "";
      expect(git(h.home, "log", "-1", "--format=%at %ct", sha)).toBe(`${Math.floor(v.timeCreated / 1000)} ${Math.floor(v.timeCreated / 1000)}`);
      expect(git(h.home, "log", "-1", "--format=%B", sha)).toContain(`Artifact-Id: ${v.artifactId}`);
      // Each commit holds exactly that version's files, under the mapped folder's path.
      const files = h.emu.control.getFiles(h.editorId, v.artifactId);
      const listed = git(h.home, "ls-tree", "-r", "--name-only", sha).split("\n").sort();
      expect(listed).toEqual(
        Object.keys(files)
          .map((n) => `design/${n}`)
          .sort(),
      );
      expect(git(h.home, "show", `${sha}:design/App.tsx`) + "\n").toBe(files["App.tsx"]);
    });
    expect(git(h.home, "log", "--format=%s", "design-history", "--", "design/App.tsx").split("\n").length).toBeGreaterThan(0);
  });

  it("is idempotent: a re-run adds nothing, one more version adds exactly one commit", async () => {
    await setUpRepo();
    generate("make the header sticky");
    const first = await exportJson();
    expect(first.added).toHaveLength(2);

    const again = await exportJson();
    expect(again).toMatchObject({ added: [], skipped: 2 });

    generate("add a footer");
    const tip = git(h.home, "rev-parse", "design-history");
    const human = await runMpsync(["history", "export"], h.home, h.env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^\+ v3 +[0-9a-f]{12} {2}add a footer$/m);
    expect(human.stdout).toContain("added 1 commit to design-history (2 versions already there); files under design/");
    expect((await exportJson()).added).toEqual([]);
    expect(git(h.home, "rev-parse", "design-history~1")).toBe(tip);
    expect(subjects(h.home, "design-history")).toHaveLength(3);
  });

  it("writes the branch named by --into and skips refused remote names", async () => {
    await setUpRepo();
    h.emu.control.setFiles(h.editorId, { ...h.remoteFiles(), "../escape.txt": "evil\n" }, { newArtifact: true, title: "hostile" });
    const doc = await exportJson("--into", "mp/history");
    expect(doc.branch).toBe("mp/history");
    expect(doc.added.map((a) => a.versionLabel)).toEqual(["v1", "v2"]);
    expect(doc.refused).toEqual([expect.objectContaining({ versionLabel: "v2", name: "../escape.txt" })]);
    expect(git(h.home, "ls-tree", "-r", "--name-only", "mp/history")).not.toContain("escape");
  });

  it("refuses a checked-out branch and a branch it did not write", async () => {
    await setUpRepo();
    const current = git(h.home, "symbolic-ref", "--short", "HEAD");
    const checkedOut = await runMpsync(["history", "export", "--into", current], h.home, h.env);
    expect(checkedOut.code).toBe(2);
    expect(checkedOut.stderr).toMatch(/checked out/);
    git(h.home, "branch", "other");
    const foreign = await runMpsync(["history", "export", "--into", "other"], h.home, h.env);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toMatch(/not written by mpsync/);
  });

  it("is a usage error outside a git repository", async () => {
    const run = await runMpsync(["history", "export"], h.home, h.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/not inside a git repository/);
  });
});
