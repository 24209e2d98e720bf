/**
 * A status answer that names a new version: its read goes out the moment the answer arrives,
 * before the lock check and the loop's step (which run while it is in flight). The real worker
 * on a real folder against the emulator; the lock check is held until the read has arrived.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDesignWorker } from "../../src/daemon/create-worker.js";
import type { DesignWorker } from "../../src/daemon/design-worker.js";
import { startHarness, type Harness } from "../support/harness.js";

let h: Harness;
let worker: DesignWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await h?.close();
});

describe("a new version named by a status answer", () => {
  it("is read before the lock check ends, with no active-artifact call, and lands on disk", async () => {
    h = await startHarness({ syncrc: { pollIntervalSec: 0.05, remoteCheckSec: 600 } });
    const [mapping] = await h.runtime.mappings();
    // Synced before the worker starts: its start-up cycle writes nothing, so no echo of its own
    // writes is queued when the new version's status arrives (a queued cycle defers the read).
    await (await h.runtime.openDesign(mapping!, () => undefined)).fullSync();
    let newArtifact: string | undefined = undefined; // set when the version is made
    let pulled = false;
    /** At each lock check between the new version and its pull: its reads the emulator had answered. */
    const readsAtLockCheck: number[] = [];
    const isReadOfNew = (e: { path: string }): boolean => newArtifact !== undefined && e.path.includes(`/artifacts/${newArtifact}/files/read`);
    const lockHeld = async (): Promise<boolean> => {
      if (newArtifact !== undefined && !pulled) {
        // Bounded: without the early read, none arrives while the check is held.
        await h.emu.control.waitForRequest(isReadOfNew, { timeoutMs: 3000, includePast: true }).catch(() => undefined);
        readsAtLockCheck.push(h.emu.control.countRequests(isReadOfNew));
      }
      return true;
    };
    const emit: typeof h.emit = (e) => {
      if (e.event === "pulled") pulled = true;
      h.emit(e);
    };
    worker = await createDesignWorker(h.runtime, mapping!, { emit, lockHeld, onFatal: () => undefined });
    await worker.start();
    const files = { ...h.remoteFiles(), "App.tsx": "export function App() { return <p>v2</p>; }\n" };
    const since = h.mark();
    const activeCalls = h.emu.control.countRequests((e) => e.path.endsWith("/active-artifact"));
    newArtifact = h.emu.control.setFiles(h.editorId, files, { newArtifact: true });
    await h.waitForEvent((e) => e.event === "pulled", { since });
    // A poll answered just before the new version may check the lock first (and see no read).
    expect(readsAtLockCheck).toContain(1);
    expect(await h.readLocal("App.tsx")).toBe(files["App.tsx"]);
    expect(h.emu.control.countRequests(isReadOfNew)).toBe(1);
    expect(h.emu.control.countRequests((e) => e.path.endsWith("/active-artifact"))).toBe(activeCalls);
  });
});
