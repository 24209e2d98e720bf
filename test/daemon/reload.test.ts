/** `mpsync init` while `watch` runs: the daemon sees the new mapping without a signal. */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, TEST_KEY, type Harness } from "../support/harness.js";
import { BIN } from "../e2e/helpers.js";
import { killDaemon, spawnWatch, type DaemonProcess } from "./daemon-process.js";

let h: Harness;
let d: DaemonProcess | undefined;
afterEach(async () => {
  await killDaemon(d);
  d = undefined;
  await h?.close();
});

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: h.home,
    env: { PATH: process.env.PATH ?? "", HOME: h.home, NO_COLOR: "1", ...h.env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr })));
}

describe("watch and a changed .syncrc", () => {
  it("`mpsync init` of a second folder while watch runs: the daemon starts it, and says so", async () => {
    h = await startHarness();
    d = spawnWatch(h.home, h.env);
    await d.waitFor((e) => e.event === "ready" && e.dir === "design");
    const second = h.emu.control.createDesign(TEST_KEY, { files: { "App.tsx": "export const second = true;\n" } });
    const init = await runCli(["init", "second", "--design", second.editorId]);
    expect(init.code, init.stderr).toBe(0);
    await d.waitFor((e) => e.event === "ready" && e.dir === "second");
    // Said once the reload is done (after the folder's start-up sync, which says `ready`).
    await d.waitFor((e) => e.code === "RELOADED" && String(e.message).includes("started second"));
    await h.writeLocal("../second/App.tsx", "export const second = 'edited';\n");
    await d.waitFor((e) => e.event === "pushed" && e.dir === "second");
    expect(h.emu.control.getFiles(second.editorId)["App.tsx"]).toBe("export const second = 'edited';\n");
    expect(await readFile(join(h.home, ".syncrc"), "utf8")).toContain(second.editorId);
  });

  it("SIGHUP with nothing changed says so in one line", async () => {
    h = await startHarness();
    d = spawnWatch(h.home, h.env);
    await d.waitFor((e) => e.event === "ready");
    d.child.kill("SIGHUP");
    const said = await d.waitFor((e) => e.code === "RELOADED");
    expect(said.message).toBe("reloaded .syncrc: nothing changed");
  });
});
