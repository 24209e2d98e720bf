/**
 * A local deletion is said by the running `watch` when it happens (the API cannot delete, so
 * the service keeps the file): one `deleted` event naming the file and the `restore` that
 * brings it back, once per deletion, for a plain `rm` and for a `git checkout` that removes a
 * file.
 */
import { execFileSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliIn, useWatches } from "../support/watch-harness.js";
import type { DaemonProcess } from "./daemon-process.js";

const watches = useWatches();

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main", ...args], { cwd, stdio: "ignore" });
}

const deletedEvents = (p: DaemonProcess, path: string): Record<string, unknown>[] =>
  p.events.filter((e) => e.event === "deleted" && (e.files as string[]).includes(path));

describe("watch says a local deletion", () => {
  it("for rm and for a git checkout: one line each, naming the file and mpsync restore", async () => {
    const { h, d } = await watches.start();
    git(h.root, "init", "-q");
    git(h.root, "add", "-A");
    git(h.root, "commit", "-qm", "design");
    git(h.root, "checkout", "-qb", "feature");
    await h.writeLocal("extra.tsx", "export const extra = 1;\n");
    await d.waitFor((e) => e.event === "pushed" && (e.files as string[]).includes("extra.tsx"));
    git(h.root, "add", "-A");
    git(h.root, "commit", "-qm", "extra");

    git(h.root, "checkout", "-q", "main");
    const fromGit = await d.waitFor((e) => e.event === "deleted");
    expect(fromGit).toMatchObject({ dir: "design", files: ["extra.tsx"] });
    expect(String(fromGit.message)).toBe(
      "deleted locally: extra.tsx; the service keeps it (its API cannot delete files): bring it back with mpsync restore extra.tsx",
    );
    expect(h.remoteFiles()["extra.tsx"]).toBe("export const extra = 1;\n");

    await rm(join(h.root, "App.tsx"));
    const fromRm = await d.waitFor((e) => e.event === "deleted" && (e.files as string[]).includes("App.tsx"));
    expect(fromRm.files).toEqual(["App.tsx"]);
    expect(String(fromRm.message)).toContain("mpsync restore App.tsx");

    // Later cycles (a push of another file, a forced full one) do not say either deletion again.
    const since = d.events.length;
    await h.writeLocal("index.css", "body { margin: 0; }\n");
    await d.waitFor((e) => e.event === "pushed", { since });
    // `mpsync sync`: the daemon runs a full cycle now, which finds both deletions again.
    const synced = await cliIn(h, ["sync", "--json"]);
    expect(synced.stderr).toBe("");
    expect(deletedEvents(d, "extra.tsx")).toHaveLength(1);
    expect(deletedEvents(d, "App.tsx")).toHaveLength(1);

    // Back (as mpsync restore puts it), then deleted again: said again.
    await h.writeLocal("App.tsx", h.remoteFiles()["App.tsx"]!);
    const back = d.events.length;
    // A full cycle finds it back before it goes again (a save's cycle may come before the
    // watcher has seen it: then the add and the removal arrive as one batch, and nothing changed).
    const resynced = await cliIn(h, ["sync", "--json"]);
    expect(resynced.stderr).toBe("");
    await rm(join(h.root, "App.tsx"));
    await d.waitFor((e) => e.event === "deleted" && (e.files as string[]).includes("App.tsx"), { since: back });
    expect(deletedEvents(d, "App.tsx")).toHaveLength(2);
  });
});
