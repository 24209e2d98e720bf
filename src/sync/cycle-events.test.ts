import { describe, expect, it } from "vitest";
import { emitCycleEvents } from "./cycle-events.js";
import type { SyncEvent } from "./events.js";
import { emptyExecuteResult, type ExecuteResult } from "./execution-run.js";

function result(failed: [string, string][]): ExecuteResult {
  return { ...emptyExecuteResult(), failed: failed.map(([path, code]) => ({ path, code, message: code })) };
}

describe("emitCycleEvents: failed writes", () => {
  it("a full disk is one line for every file it refused; other failures one line each", () => {
    const events: SyncEvent[] = [];
    const failed: [string, string][] = [
      ["a.ts", "ENOSPC"],
      ["b.ts", "ENOSPC"],
      ["c.ts", "EDQUOT"],
      ["d.ts", "ENOSPC"],
      ["e.ts", "EPERM"],
    ];
    emitCycleEvents(
      (e) => events.push(e),
      () => undefined,
      { dir: "web", editorId: "x" },
      result(failed),
    );
    expect(events.map((e) => [e.event === "error" ? e.code : undefined, e.message])).toEqual([
      [
        "DISK_FULL",
        "the disk is full: 4 files could not be written (a.ts, b.ts, c.ts, and 1 more); they are written once space is freed, and the rest of the cycle went on",
      ],
      ["EPERM", "cannot write e.ts (EPERM); the rest of the cycle went on, and it is tried again later"],
    ]);
    expect(events[0]!.event === "error" && events[0]!.files).toEqual(["a.ts", "b.ts", "c.ts", "d.ts"]);
  });
});

describe("emitCycleEvents: pushed and pulled name their files", () => {
  it.each([
    [{ pushed: ["App.tsx"] }, ["pushed App.tsx"]],
    [{ pushed: ["a.ts", "b.ts"] }, ["pushed a.ts and b.ts"]],
    [{ pulled: ["a.ts", "b.ts", "c.ts", "d.ts", "e.ts"] }, ["pulled a.ts, b.ts, c.ts and 2 more"]],
    [{ pulled: ["a.ts"], removed: ["old.ts"] }, ["pulled a.ts; removed old.ts (backed up)"]],
    [{ removed: ["old.ts", "x.ts", "y.ts"] }, ["removed old.ts, x.ts and y.ts (backed up)"]],
    [
      { pulled: ["a.ts"], pushed: ["App.tsx"], conflicts: [{ path: "App.tsx", unresolved: false, policy: "merge" as const }] },
      ["pulled a.ts; merged App.tsx (your edits and the service's, both kept)", "pushed App.tsx"],
    ],
    [
      { conflicts: [{ path: "App.tsx", unresolved: true, policy: "merge" as const, line: 3 }] },
      ["conflict in App.tsx:3: markers written, resolve and save to push (both sides in .mpsync/conflicts/)"],
    ],
    [
      { pushed: ["App.tsx"], conflicts: [{ path: "App.tsx", unresolved: false, policy: "keep-local" as const }] },
      ["pushed App.tsx", "conflict in App.tsx: resolved by keep-local (both sides in .mpsync/conflicts/)"],
    ],
  ])("%j", (part, messages) => {
    const events: SyncEvent[] = [];
    emitCycleEvents(
      (e) => events.push(e),
      () => undefined,
      { dir: "web", editorId: "x" },
      { ...emptyExecuteResult(), ...part },
    );
    expect(events.map((e) => e.message)).toEqual(messages);
  });

  it("a clean merge is no conflict: its file is among the pulled, and the folder's word stays synced", () => {
    const events: SyncEvent[] = [];
    const conflicts = [{ path: "App.tsx", unresolved: false, policy: "merge" as const }];
    emitCycleEvents(
      (e) => events.push(e),
      () => undefined,
      { dir: "web" },
      { ...emptyExecuteResult(), pushed: ["App.tsx"], conflicts },
    );
    expect(events.map((e) => e.event)).toEqual(["pulled", "pushed"]);
    expect(events[0]!.event === "pulled" && events[0]!.files).toEqual(["App.tsx"]);
  });
});
