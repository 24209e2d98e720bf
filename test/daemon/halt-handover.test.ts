/**
 * Following the halt advice works: the mapped folder is removed, `watch` says halted and to run
 * `mpsync pull --force`; the user runs it. The control socket went with the folder, so the
 * command reaches the daemon through its second socket (outside the folder); the daemon runs
 * the forced pull, puts its lock and socket back, and keeps syncing the folder.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeAtOnce } from "../support/temp-dir.js";
import { cliIn, useWatches } from "../support/watch-harness.js";

const watches = useWatches();

describe("pull --force on a folder whose removal halted watch", () => {
  it("hands the pull to the running daemon, which puts its lock back and keeps syncing", async () => {
    const { h, d } = await watches.start({ syncrc: { remoteCheckSec: 0.2 } });
    const cli = (args: string[]) => cliIn(h, args);

    await removeAtOnce(h.root);
    const halted = await d.waitFor((e) => e.event === "halted");
    expect(String(halted.message)).toContain('run "mpsync pull --force"');

    const pulled = await cli(["pull", "--force"]);
    expect(pulled.stderr + pulled.stdout).toContain("synced by the running daemon");
    expect(pulled.stderr).toBe("");
    expect(pulled.code).toBe(0);
    expect(await h.readLocal("App.tsx")).toBe(h.remoteFiles()["App.tsx"]);
    // The daemon holds the folder again: its lock, and its socket in the folder (mpsync sync).
    const lock = JSON.parse(await readFile(join(h.root, ".mpsync", "lock"), "utf8")) as { pid: number };
    expect(lock.pid).toBe(d.child.pid);
    expect(await readFile(join(h.root, ".mpsync", ".gitignore"), "utf8")).toBe("*\n");
    expect(JSON.parse(await readFile(join(h.root, ".mpsync", "state.json"), "utf8"))).toHaveProperty("files");
    const synced = await cli(["sync"]);
    expect(synced.stderr).toBe("");
    expect(synced.code).toBe(0);
    expect(synced.stdout + synced.stderr).toContain("running daemon");

    // ...and keeps syncing both ways, past several status polls and lock checks.
    const since = d.events.length;
    await h.writeLocal("index.css", "body { margin: 0; }\n");
    await d.waitFor((e) => e.event === "pushed" && (e.files as string[]).includes("index.css"), { since });
    h.emu.control.editFile(h.editorId, "App.tsx", "// edited on the web after the folder came back\n");
    await d.waitFor((e) => e.event === "pulled" && (e.files as string[]).includes("App.tsx"), { since });
    expect(d.events.filter((e) => e.event === "error")).toEqual([]);
    expect(d.child.exitCode).toBeNull();
  });
});
