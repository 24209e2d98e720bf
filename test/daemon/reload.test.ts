/** `mpsync init` while `watch` runs: the daemon sees the new mapping without a signal. */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_KEY } from "../support/harness.js";
import { cliIn, useWatches } from "../support/watch-harness.js";

const watches = useWatches();

describe("watch and a changed .syncrc", () => {
  it("`mpsync init` of a second folder while watch runs: the daemon starts it, and says so", async () => {
    const h = await watches.harness();
    const d = watches.spawn(h);
    await d.waitFor((e) => e.event === "ready" && e.dir === "design");
    const second = h.emu.control.createDesign(TEST_KEY, { files: { "App.tsx": "export const second = true;\n" } });
    const init = await cliIn(h, ["init", "second", "--design", second.editorId]);
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
    const { d } = await watches.start();
    d.child.kill("SIGHUP");
    const said = await d.waitFor((e) => e.code === "RELOADED");
    expect(said.message).toBe("reloaded .syncrc: nothing changed");
  });
});
