/**
 * git.commitOnPull against the real emulator and real git: one commit per pulled version,
 * staged work never swept in, refusal during a merge; through the one-shot `pull` command and
 * through the watch daemon.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { commitPulledVersion } from "../../src/git/commit-on-pull.js";
import { startHarness, type Harness } from "../support/harness.js";
import { git, initRepo, runMpsync, stagedPaths, subjects } from "./git-fixtures.js";

let h: Harness;

beforeEach(async () => {
  h = await startHarness({ syncrc: { git: { commitOnPull: true }, logLevel: "warn" } });
  initRepo(h.home);
  await writeFile(join(h.home, ".gitignore"), ".xdg-state/\n.xdg-config/\n");
  await writeFile(join(h.home, "notes.txt"), "first\n");
  git(h.home, "add", ".gitignore", ".syncrc", "notes.txt");
  git(h.home, "commit", "-q", "-m", "initial");
});
afterEach(async () => h.close());

/** Runs a generation to completion in the emulator; returns the new version. */
function generate(prompt: string) {
  h.emu.control.startGeneration(h.editorId, prompt);
  h.emu.control.finishGeneration(h.editorId);
  const versions = h.emu.control.getDesign(h.editorId).versions;
  const latest = versions[versions.length - 1];
  if (latest === undefined) throw new Error("no version");
  return latest;
}

async function pull(): Promise<{ code: number; events: { event: string; message: string }[] }> {
  const run = await runMpsync(["pull", "--json"], h.home, h.env);
  const doc = JSON.parse(run.stdout) as { events: { event: string; message: string }[] };
  return { code: run.code, events: doc.events };
}

describe("git.commitOnPull with mpsync pull", () => {
  it("makes exactly one commit per pulled version, dated and labelled from the version", async () => {
    expect((await pull()).code).toBe(0);
    const v2 = generate("make the header sticky");
    expect((await pull()).code).toBe(0);
    const v3 = generate("add a footer");
    expect((await pull()).code).toBe(0);
    // A pull with nothing new commits nothing.
    expect((await pull()).code).toBe(0);

    expect(subjects(h.home, "HEAD")).toEqual(["initial", "design: v1 Initial version", "design: v2 make the header sticky", "design: v3 add a footer"]);
    expect(git(h.home, "log", "-1", "--format=%at", "HEAD")).toBe(String(Math.floor(v3.timeCreated / 1000)));
    expect(git(h.home, "log", "-1", "--format=%B", "HEAD~1")).toBe(
      `design: v2 make the header sticky\n\nEditor-Id: ${h.editorId}\nArtifact-Id: ${v2.artifactId}`,
    );
    const touched = git(h.home, "show", "--name-only", "--format=", "HEAD~1").split("\n");
    expect(touched.length).toBeGreaterThan(0);
    expect(touched.every((p) => p.startsWith("design/"))).toBe(true);
    // Committed content is the pulled content, and the index follows the commit (nothing shows as staged).
    expect(git(h.home, "show", "HEAD:design/App.tsx") + "\n").toBe(h.remoteFiles()["App.tsx"]);
    expect(git(h.home, "status", "--porcelain", "--", "design")).toBe("");
  });

  it("never includes unrelated staged work, which stays staged", async () => {
    await writeFile(join(h.home, "notes.txt"), "second\n");
    await writeFile(join(h.home, "staged-new.txt"), "new\n");
    git(h.home, "add", "notes.txt", "staged-new.txt");

    expect((await pull()).code).toBe(0);
    generate("make the header sticky");
    expect((await pull()).code).toBe(0);

    expect(subjects(h.home, "HEAD")).toHaveLength(3);
    for (const rev of ["HEAD", "HEAD~1"]) {
      const files = git(h.home, "show", "--name-only", "--format=", rev).split("\n");
      expect(files).not.toContain("notes.txt");
      expect(files).not.toContain("staged-new.txt");
    }
    expect(stagedPaths(h.home).sort()).toEqual(["notes.txt", "staged-new.txt"]);
    expect(git(h.home, "show", ":notes.txt")).toBe("second");
    expect(git(h.home, "show", "HEAD:notes.txt")).toBe("first");
  });

  // Once: v3's App.tsx imports AddTabs.tsx, pulled with v2 while commitOnPull was off; the
  // commit of v3 left it untracked and did not build.
  it("each commit holds every file of its version, one pulled with an earlier uncommitted version included", async () => {
    const setCommitOnPull = async (on: boolean): Promise<void> => {
      const path = join(h.home, ".syncrc");
      const c = JSON.parse(await readFile(path, "utf8")) as { git: { commitOnPull: boolean } };
      c.git.commitOnPull = on;
      await writeFile(path, JSON.stringify(c));
    };
    await setCommitOnPull(false);
    expect((await pull()).code).toBe(0);
    const v1 = h.remoteFiles();
    h.emu.control.setFiles(
      h.editorId,
      { ...v1, "components/AddTabs.tsx": "export function AddTabs() { return null; }\n" },
      { newArtifact: true, title: "add tabs" },
    );
    expect((await pull()).code).toBe(0);
    await setCommitOnPull(true);
    const v3: Record<string, string> = {
      ...h.remoteFiles(),
      "App.tsx": 'import { AddTabs } from "./components/AddTabs";\nexport function App() { return <AddTabs />; }\n',
    };
    h.emu.control.setFiles(h.editorId, v3, { newArtifact: true, title: "use the tabs" });
    // A local edit waiting to be pushed stays out of the version's commit.
    await h.writeLocal("index.css", "/* mine, not pushed yet */\n");
    expect((await pull()).code).toBe(0);

    expect(subjects(h.home, "HEAD")).toEqual(["initial", "design: v3 use the tabs"]);
    const tree = git(h.home, "ls-tree", "-r", "--name-only", "HEAD", "--", "design").split("\n").sort();
    expect(tree).toEqual(
      Object.keys(v3)
        .map((n) => `design/${n}`)
        .sort(),
    );
    expect(git(h.home, "show", "HEAD:design/components/AddTabs.tsx") + "\n").toBe(v3["components/AddTabs.tsx"]);
    expect(git(h.home, "show", "HEAD:design/index.css") + "\n").toBe(v3["index.css"]);
    // The local edit shows as an unstaged change on top of the version, nothing as staged.
    expect(git(h.home, "diff", "--name-only", "--", "design")).toBe("design/index.css");
    expect(git(h.home, "diff", "--cached", "--name-only", "--", "design")).toBe("");
  });

  it("refuses during a merge, with a notice, and leaves the branch alone", async () => {
    expect((await pull()).code).toBe(0);
    const head = git(h.home, "rev-parse", "HEAD");
    await writeFile(join(h.home, ".git", "MERGE_HEAD"), `${head}\n`);
    generate("make the header sticky");

    const { code, events } = await pull();
    expect(code).toBe(0); // the pull itself succeeded
    expect(events.some((e) => e.event === "pulled")).toBe(true);
    expect(events.find((e) => e.event === "notice" && /merge is in progress/.test(e.message))).toBeDefined();
    expect(git(h.home, "rev-parse", "HEAD")).toBe(head);
  });
});

describe("commitPulledVersion", () => {
  it("makes the root commit on an unborn branch, and the index follows it", async () => {
    await rm(join(h.home, ".git"), { recursive: true, force: true });
    initRepo(h.home);
    expect((await pull()).code).toBe(0);
    expect(subjects(h.home, "HEAD")).toEqual(["design: v1 Initial version"]);
    expect(git(h.home, "rev-list", "--parents", "HEAD")).toMatch(/^[0-9a-f]+$/);
    expect(git(h.home, "status", "--porcelain", "--", "design")).toBe("");
  });

  it("refuses while another git process holds index.lock", async () => {
    await runMpsync(["pull", "--json"], h.home, h.env);
    await writeFile(join(h.home, ".git", "index.lock"), "");
    const outcome = await commitPulledVersion({ folderRoot: h.root, paths: ["App.tsx"], editorId: h.editorId, artifactId: "x", version: undefined });
    expect(outcome).toMatchObject({ committed: false, skip: "busy" });
  });

  it("says so outside a work tree instead of failing", async () => {
    const outside = await mkdtemp(join(tmpdir(), "mpsync-nogit-"));
    try {
      const outcome = await commitPulledVersion({ folderRoot: outside, paths: ["x"], editorId: "e", artifactId: "a", version: undefined });
      expect(outcome).toMatchObject({ committed: false, skip: "not-in-repo" });
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe("git.commitOnPull in the watch daemon", () => {
  it("commits the start-up pull and each version pulled after a generation", async () => {
    const daemon = new WatchDaemon({ runtime: h.runtime, dirs: [], emit: h.emit });
    await daemon.start();
    try {
      const [worker] = daemon.workers;
      if (worker === undefined) throw new Error("no worker");
      await worker.idle();
      expect(subjects(h.home, "HEAD")).toEqual(["initial", "design: v1 Initial version"]);

      const since = h.mark();
      generate("make the header sticky");
      await h.waitForEvent((e) => e.event === "pulled", { since });
      await worker.idle();
      expect(subjects(h.home, "HEAD")).toEqual(["initial", "design: v1 Initial version", "design: v2 make the header sticky"]);
    } finally {
      await daemon.stop();
    }
  });
});

describe("git.commitOnPull with the other commands that pull", () => {
  it("`prompt --wait` commits the version it pulled", async () => {
    await pull();
    const before = subjects(h.home, "HEAD").length;
    const run = await runMpsync(["prompt", "add a pricing table", "--wait"], h.home, h.env);
    expect(run.code).toBe(0);
    const after = subjects(h.home, "HEAD");
    expect(after.length).toBe(before + 1);
    expect(after[after.length - 1]).toMatch(/^design: v\d+ add a pricing table$/);
  });
});
