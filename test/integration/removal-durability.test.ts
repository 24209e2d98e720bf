/**
 * A removal is part of the cycle's durability flush: the folder that held a removed file is
 * fsynced before state.json records the removal. Else a power loss could bring the file back
 * while the state says it is gone, and the next cycle would take it for a new local file and
 * push it back to the whole team. The real adapters on a real folder, the emulator on loopback;
 * the flush's fsyncs are recorded through its seam (FlushOptions.fsync), with the state saves.
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSilentLogger } from "../../src/log/logger.js";
import { fsyncPath } from "../../src/local/atomic-write.js";
import { summarizeCycle } from "../../src/sync/cycle-summary.js";
import { DesignSync } from "../../src/sync/design-sync.js";
import { openFsFolder } from "../../src/sync/fs-adapters.js";
import { startHarness, STARTER_FILES, type Harness } from "../support/harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A DesignSync on the real folder whose fsyncs and state saves land in `log`, in order. */
async function openRecorded(harness: Harness, log: string[]): Promise<DesignSync> {
  const folder = await openFsFolder(harness.root, [], harness.runtime.clock, {
    flush: {
      syncfs: false,
      fsync: async (path) => {
        log.push(`fsync ${path}`);
        await fsyncPath(path);
      },
    },
  });
  const sync = new DesignSync({
    dir: "design",
    design: harness.editorId,
    client: await harness.runtime.client(),
    local: folder.local,
    matcher: folder.matcher,
    store: {
      ...folder.store,
      save: async (state, options) => {
        log.push(`save${options?.durable === false ? " (journal)" : ""}`);
        await folder.store.save(state, options);
      },
    },
    policy: "merge",
    logger: createSilentLogger(),
    emit: harness.emit,
    clock: harness.runtime.clock,
  });
  await sync.open();
  return sync;
}

describe("a pull that removes files", () => {
  it("fsyncs the folder of each removed file before the state that records the removal is saved", async () => {
    h = await startHarness();
    const log: string[] = [];
    const sync = await openRecorded(h, log);
    await sync.fullSync();
    const next = { ...STARTER_FILES };
    delete next["index.css"];
    delete next["components/Button.tsx"];
    h.emu.control.setFiles(h.editorId, next, { newArtifact: true, title: "drop two" });
    log.length = 0;
    expect(summarizeCycle(await sync.fullSync()).removed.sort()).toEqual(["components/Button.tsx", "index.css"]);
    // components/ held only Button.tsx: it is removed too, so the root holds both last entries.
    await expect(stat(join(h.root, "components"))).rejects.toMatchObject({ code: "ENOENT" });
    const save = log.lastIndexOf("save");
    expect(save).toBeGreaterThan(-1);
    expect(log.slice(0, save)).toContain(`fsync ${h.root}`);
    expect(log.slice(save)).not.toContain(`fsync ${h.root}`);
    expect(await h.readLocal("index.css")).toBeUndefined();
  });

  it("fsyncs the folder a removal left in place (it still holds other files)", async () => {
    h = await startHarness({ files: { ...STARTER_FILES, "components/Card.tsx": "export function Card() {}\n" } });
    const log: string[] = [];
    const sync = await openRecorded(h, log);
    await sync.fullSync();
    const next: Record<string, string> = { ...STARTER_FILES, "components/Card.tsx": "export function Card() {}\n" };
    delete next["components/Button.tsx"];
    h.emu.control.setFiles(h.editorId, next, { newArtifact: true, title: "drop the button" });
    log.length = 0;
    expect(summarizeCycle(await sync.fullSync()).removed).toEqual(["components/Button.tsx"]);
    const save = log.lastIndexOf("save");
    expect(log.slice(0, save)).toContain(`fsync ${join(h.root, "components")}`);
    expect(log.slice(0, save)).not.toContain(`fsync ${h.root}`);
  });
});
