/** The Runtime's request retries reach the client it builds (the real client against the emulator). */
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../support/harness.js";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const isStatus = (e: { path: string }): boolean => e.path.endsWith("/status");

describe("Runtime retry settings", () => {
  it("the client tries a failing call as often as the Runtime was told, and a failFast client once", async () => {
    h = await startHarness({ retry: { maxAttempts: 2, baseDelayMs: 0 } });
    h.emu.control.setFaults({ errorRate: 1 });
    await expect((await h.runtime.client()).getStatus(h.editorId)).rejects.toMatchObject({ code: "SERVER_ERROR" });
    expect(h.emu.control.countRequests(isStatus)).toBe(2);
    const quick = await h.newRuntime();
    quick.failFast();
    h.emu.control.resetRequestLog();
    await expect((await quick.client()).getStatus(h.editorId)).rejects.toMatchObject({ code: "SERVER_ERROR" });
    await quick.close();
    expect(h.emu.control.countRequests(isStatus)).toBe(1);
  });
});
