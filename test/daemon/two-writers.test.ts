/**
 * Two people save the same file at the same moment (the API has no compare-and-swap): two real `mpsync watch`
 * processes, two folders, one design. Both pre-push reads are held at the service so both see
 * the old text, then both PATCH: the later write replaces the earlier one on the service, and
 * both were answered. The read-back and the unsettled push (races.ts) must bring the loser's
 * edit back, or mark the conflict, in a live file.
 */
import { describe, expect, it } from "vitest";
import { STARTER_FILES, until, type Harness } from "../support/harness.js";
import { useWatches } from "../support/watch-harness.js";
import type { DaemonProcess } from "./daemon-process.js";

const SYNCRC = { debounceMs: 30, pollIntervalSec: 0.2, remoteCheckSec: 0.5 };
const watches = useWatches();

/** Two folders on one design, each with its own `watch`, both ready. */
async function twoWatches(): Promise<[Harness, Harness, DaemonProcess, DaemonProcess]> {
  const pair = await watches.pair(SYNCRC);
  // Both pre-push reads wait at the service: each client decides on the old text.
  pair[0].emu.control.failNext({ method: "POST", path: /\/files\/read$/ }, { delayMs: 400 }, 2);
  return pair;
}

const APP = STARTER_FILES["App.tsx"]!;

describe("two watch processes saving one file at the same moment", () => {
  it("different lines: both edits end merged on the service and in both folders", async () => {
    const [ha, hb] = await twoWatches();
    await Promise.all([
      ha.writeLocal("App.tsx", APP.replace("// App line 3", "// edit A")),
      hb.writeLocal("App.tsx", APP.replace("// App line 16", "// edit B")),
    ]);
    const both = (text: string | undefined): boolean => /edit A/.test(text ?? "") && /edit B/.test(text ?? "");
    await until(() => both(ha.remoteFiles()["App.tsx"]), 20_000, "both edits on the service");
    await until(async () => both(await ha.readLocal("App.tsx")) && both(await hb.readLocal("App.tsx")), 20_000, "both edits in both folders");
  });

  it("the same line: a reported conflict, with both texts in a live file of at least one folder", async () => {
    const [ha, hb, da, db] = await twoWatches();
    await Promise.all([
      ha.writeLocal("App.tsx", APP.replace("// App line 5", "// edit A")),
      hb.writeLocal("App.tsx", APP.replace("// App line 5", "// edit B")),
    ]);
    const isConflict = (e: Record<string, unknown>): boolean => e["event"] === "conflict" && (e["files"] as string[] | undefined)?.includes("App.tsx") === true;
    await Promise.race([da.waitFor(isConflict, { timeoutMs: 20_000 }), db.waitFor(isConflict, { timeoutMs: 20_000 })]);
    const live = [await ha.readLocal("App.tsx"), await hb.readLocal("App.tsx")];
    expect(live.some((t) => /edit A/.test(t ?? "") && /edit B/.test(t ?? ""))).toBe(true);
  });
});
