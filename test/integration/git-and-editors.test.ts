/** Living with git and editors: a branch switch during watch, and every common save style. */
import { execFile } from "node:child_process";
import { mkdir, rename, rm, unlink, writeFile } from "node:fs/promises";
import { PassThrough } from "node:stream";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { Runtime } from "../../src/runtime.js";
import { startHarness, STARTER_FILES, until, type Harness, startDaemon } from "../support/harness.js";

const exec = promisify(execFile);
let h: Harness;
let daemon: WatchDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await h?.close();
});

const isPatch = (e: { method: string }): boolean => e.method === "PATCH";

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd });
  return stdout;
}

describe("git", () => {
  it("a branch switch during watch goes out as one PATCH, with no conflict from the daemon's own writes", async () => {
    h = await startHarness({ syncrc: { debounceMs: 200 } });
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, h.emit)).fullSync();
    await git(h.home, "init", "-q");
    await writeFile(join(h.home, ".gitignore"), ".xdg-*/\n");
    await git(h.home, "add", "-A");
    await git(h.home, "commit", "-qm", "design as pulled");
    await git(h.home, "checkout", "-qb", "feature");
    for (let i = 0; i < 12; i++) await writeFile(join(h.root, `components/F${i}.tsx`), `export const F${i} = ${i};\n`);
    await writeFile(join(h.root, "index.css"), "body { color: teal; }\n");
    await git(h.home, "add", "-A");
    await git(h.home, "commit", "-qm", "feature");
    await git(h.home, "checkout", "-q", "main");

    daemon = await startDaemon(h);
    const before = h.mark();
    await git(h.home, "checkout", "-q", "feature");
    await h.waitForEvent((e) => e.event === "pushed", { since: before });
    await daemon.workers[0]!.idle();
    expect(h.emu.control.countRequests(isPatch)).toBe(1);
    expect(h.remoteFiles()["index.css"]).toBe("body { color: teal; }\n");
    expect(h.remoteFiles()["components/F11.tsx"]).toBe("export const F11 = 11;\n");
    expect(h.events.slice(before).filter((e) => e.event === "conflict")).toEqual([]);
    expect((await git(h.home, "status", "--porcelain")).trim()).toBe("");
  });
});

describe("git pause", () => {
  it("holds pushes while .git/index.lock exists, then sends them as one batch and logs the operation", async () => {
    h = await startHarness({ syncrc: { debounceMs: 50 } });
    await git(h.home, "init", "-q");
    const logs: string[] = [];
    const destination = new PassThrough();
    destination.on("data", (b: Buffer) => logs.push(...b.toString().trim().split("\n")));
    const runtime = new Runtime({ cwd: h.home, env: h.env, logLevel: "info", logDestination: destination });
    await runtime.prepare();
    // Pulled before the daemon starts: a start-up pull's own writes come back from the watcher
    // as a batch, and a push pass of that batch decided before the lock below would read the
    // "during rebase" edits (a cycle in flight when git takes the lock is not held back).
    const [mapping] = await h.runtime.mappings();
    await (await h.runtime.openDesign(mapping!, () => undefined)).fullSync();
    daemon = new WatchDaemon({ runtime, dirs: [], emit: h.emit });
    await daemon.start();
    await h.waitForEvent((e) => e.event === "ready");
    // A rebase in progress holds the index lock.
    await mkdir(join(h.home, ".git/rebase-merge"), { recursive: true });
    await writeFile(join(h.home, ".git/index.lock"), "");
    for (const name of ["index.css", "App.tsx", "components/Button.tsx"]) await writeFile(join(h.root, name), `/* during rebase: ${name} */\n`);
    // The watcher has reported all three edits and the worker holds them...
    // (A folder event may come along with its files: at least the three paths are held.)
    await until(() => daemon!.workers[0]!.pendingCount >= 3, 10_000, "three pending edits");
    // ...and nothing goes out while the lock is held (a bounded negative check: three more polls).
    const polls = h.emu.control.countRequests((e) => e.path.endsWith("/status"));
    await until(() => h.emu.control.countRequests((e) => e.path.endsWith("/status")) >= polls + 3, 10_000, "three polls");
    expect(daemon.workers[0]!.pendingCount).toBeGreaterThanOrEqual(3);
    const requestLog = (): string => JSON.stringify(h.emu.control.requests().map((r) => `${r.method} ${r.path} ${r.status}`));
    // Nothing of the edits reached the service while git held the lock...
    for (const name of ["index.css", "App.tsx", "components/Button.tsx"]) expect(h.remoteFiles()[name], requestLog()).toBe(STARTER_FILES[name]);
    const patchesBefore = h.emu.control.countRequests(isPatch);
    await rm(join(h.home, ".git/rebase-merge"), { recursive: true });
    await unlink(join(h.home, ".git/index.lock"));
    await h.waitForEvent((e) => e.event === "pushed");
    await daemon.workers[0]!.idle();
    // ...and all of them went out as one PATCH once it was released.
    expect(h.emu.control.countRequests(isPatch) - patchesBefore, requestLog()).toBe(1);
    expect(h.remoteFiles()["components/Button.tsx"]).toBe("/* during rebase: components/Button.tsx */\n");
    expect(
      logs.some((l) => l.includes("held pushes during rebase")),
      logs.join("\n"),
    ).toBe(true);
    await daemon.stop();
    daemon = undefined;
    await runtime.close();
  });
});

describe("git begins during a cycle", () => {
  it("a push whose cycle began before git took its lock is held at the PATCH, nothing taken as landed, and goes out once git is done", async () => {
    h = await startHarness();
    let gitHolds = false;
    const [mapping] = await h.runtime.mappings();
    const sync = await h.runtime.createDesignSync(mapping!, h.emit, { holdPushes: () => gitHolds });
    await sync.open();
    await sync.fullSync();
    await h.writeLocal("index.css", "/* edited as git starts */\n");
    gitHolds = true; // git took index.lock after the cycle was decided
    await expect(sync.pushPaths(["index.css"])).rejects.toMatchObject({ code: "GIT_BUSY" });
    expect(h.emu.control.countRequests(isPatch)).toBe(0);
    expect(h.remoteFiles()["index.css"]).toBe(STARTER_FILES["index.css"]);
    // Journalled before the remote read (BaseLedger.journalPush), but never sent: no claim of a landed push.
    expect(sync.state.landed ?? {}).toEqual({});
    gitHolds = false;
    await sync.pushPaths(["index.css"]);
    expect(h.emu.control.countRequests(isPatch)).toBe(1);
    expect(h.remoteFiles()["index.css"]).toBe("/* edited as git starts */\n");
  });
});

describe("save styles", () => {
  it("delete-then-create pushes the new content once", async () => {
    h = await startHarness({ syncrc: { debounceMs: 150 } });
    daemon = await startDaemon(h);
    const before = h.mark();
    await unlink(join(h.root, "index.css"));
    await writeFile(join(h.root, "index.css"), "/* recreated */\n");
    const pushed = await h.waitForEvent((e) => e.event === "pushed", { since: before });
    expect(pushed.files).toEqual(["index.css"]);
    expect(h.remoteFiles()["index.css"]).toBe("/* recreated */\n");
    expect(h.emu.control.countRequests(isPatch)).toBe(1);
  });

  it("vim's backup-and-rename with a 4913 probe pushes only the real file", async () => {
    h = await startHarness({ syncrc: { debounceMs: 150 } });
    daemon = await startDaemon(h);
    const before = h.mark();
    const file = join(h.root, "App.tsx");
    // What vim does with `backupcopy=no`: probe that the folder is writable, move the original
    // to a backup name, write the new file, delete the backup.
    await writeFile(join(h.root, "4913"), "");
    await unlink(join(h.root, "4913"));
    await rename(file, `${file}~`);
    await writeFile(file, "export default function App() { return <p>vim</p>; }\n");
    await rm(`${file}~`);
    const pushed = await h.waitForEvent((e) => e.event === "pushed", { since: before });
    expect(pushed.files).toEqual(["App.tsx"]);
    const remote = h.remoteFiles();
    expect(remote["App.tsx"]).toBe("export default function App() { return <p>vim</p>; }\n");
    expect(Object.keys(remote).sort()).toEqual(Object.keys(STARTER_FILES).sort());
  });

  it("editor swap and agent temp files are never pushed", async () => {
    h = await startHarness({ syncrc: { debounceMs: 100 } });
    daemon = await startDaemon(h);
    const before = h.mark();
    for (const junk of [".App.tsx.swp", "App.tsx~", ".#App.tsx", "index.css.tmp.4242", "App.tsx.crswap"]) {
      await writeFile(join(h.root, junk), "junk");
    }
    await writeFile(join(h.root, "index.css"), "/* real */\n");
    const pushed = await h.waitForEvent((e) => e.event === "pushed", { since: before });
    expect(pushed.files).toEqual(["index.css"]);
    expect(Object.keys(h.remoteFiles()).sort()).toEqual(Object.keys(STARTER_FILES).sort());
  });
});
