import { describe, expect, it } from "vitest";
import { DaemonRecord } from "./daemon-record.js";
import type { DaemonRecordData } from "./ports.js";

describe("DaemonRecord", () => {
  it("records a status and an error, clears the error, and saves both to its store", async () => {
    const saved: DaemonRecordData[] = [];
    const r = new DaemonRecord({ lastError: { code: "NETWORK", message: "offline", at: 1 } }, (d) => {
      saved.push(structuredClone(d));
      return Promise.resolve();
    });
    r.recordStatus({ isGenerating: true, activeArtifactId: "art-1" }, 5);
    r.clearError();
    await r.save();
    r.recordError({ code: "DISK_FULL", message: "the disk is full" }, 9);
    await r.save();
    expect(saved).toEqual([
      { lastStatus: { isGenerating: true, activeArtifactId: "art-1", at: 5 }, lastError: undefined },
      { lastStatus: { isGenerating: true, activeArtifactId: "art-1", at: 5 }, lastError: { code: "DISK_FULL", message: "the disk is full", at: 9 } },
    ]);
    expect(r.lastError?.code).toBe("DISK_FULL");
  });
});
