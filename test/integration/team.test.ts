/**
 * Remote changes that move no version (found only by a content check): an edit in the web editor's code view, and a
 * teammate's push from another folder. Real daemons (WatchDaemon, chokidar) on real folders,
 * one emulator on 127.0.0.1:0; remoteCheckSec scaled down.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WatchDaemon } from "../../src/daemon/watch-daemon.js";
import { lines, startDaemon, startHarness, until, type Harness } from "../support/harness.js";

const CHECK = { pollIntervalSec: 0.05, remoteCheckSec: 0.2 };
const SHARED = lines("shared", 8);

const harnesses: Harness[] = [];
const daemons: WatchDaemon[] = [];
afterEach(async () => {
  for (const d of daemons.splice(0)) await d.stop();
  // The teammate's harness shares the first one's emulator: close it first.
  for (const h of harnesses.splice(0).reverse()) await h.close();
});

async function team(syncrcB: Record<string, unknown> = CHECK): Promise<[Harness, Harness]> {
  const a = await startHarness({ files: { "shared.ts": SHARED, "index.css": "body {}\n" }, syncrc: CHECK });
  const b = await startHarness({ sharing: a, syncrc: syncrcB });
  harnesses.push(a, b);
  daemons.push(await startDaemon(a), await startDaemon(b));
  return [a, b];
}

const patches = (h: Harness): number => h.emu.control.countRequests((e) => e.method === "PATCH");
const edit = (text: string, line: number, to: string): string => text.replace(`// ${text.split("\n")[line]?.slice(3)}`, to);

describe("the web editor's in-place edits", () => {
  it("reach a running daemon within one check, with no PATCH back", async () => {
    const a = await startHarness({ syncrc: CHECK });
    harnesses.push(a);
    daemons.push(await startDaemon(a));
    const before = patches(a);
    const mark = a.mark();
    a.emu.control.editFile(a.editorId, "index.css", "/* edited in the web editor */\n");
    const pulled = await a.waitForEvent((e) => e.event === "pulled", { since: mark });
    expect(pulled.files).toEqual(["index.css"]);
    expect(await a.readLocal("index.css")).toBe("/* edited in the web editor */\n");
    await daemons[0]!.workers[0]!.idle();
    expect(patches(a)).toBe(before);
  });
});

describe("two daemons on one design", () => {
  it("edits to different files reach both folders", async () => {
    const [a, b] = await team();
    await a.writeLocal("from-a.ts", "export const a = 1;\n");
    await b.writeLocal("from-b.ts", "export const b = 2;\n");
    await until(
      async () => (await a.readLocal("from-b.ts")) !== undefined && (await b.readLocal("from-a.ts")) !== undefined,
      15_000,
      "both files in both folders",
    );
    expect(await a.readLocal("from-b.ts")).toBe("export const b = 2;\n");
    expect(await b.readLocal("from-a.ts")).toBe("export const a = 1;\n");
    expect(a.remoteFiles()["from-a.ts"]).toBe("export const a = 1;\n");
    expect(a.remoteFiles()["from-b.ts"]).toBe("export const b = 2;\n");
  });

  it("different lines of one file end as one clean merge everywhere", async () => {
    const [a, b] = await team();
    const markA = a.mark();
    await a.writeLocal("shared.ts", edit(SHARED, 0, "// A's first line"));
    await a.waitForEvent((e) => e.event === "pushed", { since: markA });
    const markB = b.mark();
    await b.writeLocal("shared.ts", edit(SHARED, 6, "// B's seventh line"));
    await b.waitForEvent((e) => e.event === "pushed", { since: markB });
    const merged = edit(edit(SHARED, 0, "// A's first line"), 6, "// B's seventh line");
    expect(a.remoteFiles()["shared.ts"]).toBe(merged);
    await until(async () => (await a.readLocal("shared.ts")) === merged, 15_000, "A pulls the merge");
    expect(await b.readLocal("shared.ts")).toBe(merged);
    // A clean merge is the normal path of a team: said with what B pulled, never as a conflict.
    expect([...a.events, ...b.events].filter((e) => e.event === "conflict")).toEqual([]);
    expect(b.events.some((e) => e.event === "pulled" && e.message.includes("merged shared.ts"))).toBe(true);
  });

  it("overlapping edits become one reported conflict with both texts kept, and no loop of pushes", async () => {
    // B learns of A's edit only through its push's remote check (its own content check is slow).
    const [a, b] = await team({ ...CHECK, remoteCheckSec: 60 });
    const mark = a.mark();
    await a.writeLocal("shared.ts", edit(SHARED, 2, "// A wrote this"));
    await a.waitForEvent((e) => e.event === "pushed", { since: mark });
    await b.writeLocal("shared.ts", edit(SHARED, 2, "// B wrote this"));
    const conflict = await b.waitForEvent((e) => e.event === "conflict");
    expect(conflict.files).toEqual(["shared.ts"]);
    const local = (await b.readLocal("shared.ts")) ?? "";
    expect(local).toContain("// A wrote this");
    expect(local).toContain("// B wrote this");
    expect(await readdir(join(b.root, ".mpsync", "conflicts"))).not.toEqual([]);

    // Quiet: several of A's content checks later, nobody pushed again and A still has its text.
    const settled = patches(a);
    const reads = (): number => a.emu.control.countRequests((e) => e.path.endsWith("/files/read"));
    const seen = reads();
    await until(() => reads() >= seen + 4, 15_000, "A's remote checks");
    expect(patches(a)).toBe(settled);
    expect(await a.readLocal("shared.ts")).toBe(edit(SHARED, 2, "// A wrote this"));
    expect([...a.events, ...b.events].filter((e) => e.event === "conflict")).toHaveLength(1);
    expect(conflict.unresolved).toBe(true);
  });
});
