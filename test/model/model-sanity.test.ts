/**
 * The model must not be vacuous: with a port sabotaged the way a real engine bug would behave,
 * some short history must break an invariant. Fixed seed, so this stays fast and stable.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashContent } from "../../src/core/hash.js";
import { runScenario, scenarioArb } from "./scenario.js";
import { World } from "./world.js";

const SABOTAGE: Record<string, (w: World) => void> = {
  // A write that ignores the compare-and-swap clobbers a save made during a pull; here the
  // user saves right before every engine write, so the first pull over a file shows it.
  "local writes skip their compare-and-swap": (w) => {
    const replace = w.tree.replaceIfUnchanged.bind(w.tree);
    w.tree.replaceIfUnchanged = async (rel, _expect, text) => {
      const hook = w.tree.beforeWrite;
      if (w.tree.files.has(rel)) w.races.add(rel);
      await hook?.(rel, "replace");
      w.tree.beforeWrite = undefined;
      try {
        const current = w.tree.files.get(rel);
        return await replace(rel, current === undefined ? undefined : hashContent(current), text);
      } finally {
        w.tree.beforeWrite = hook;
      }
    };
  },
  "backups are dropped": (w) => {
    w.tree.backup = () => Promise.resolve();
  },
  // The base then moves although the service never confirmed the write.
  "a failed PATCH looks like a success": (w) => {
    const client = w.service.client;
    const write = client.writeFiles.bind(client);
    client.writeFiles = (...args) => write(...args).catch(() => []);
  },
  // state.json then names bases whose files a power loss could still take back.
  "the cycle's writes are never flushed": (w) => {
    w.tree.flush = () => Promise.resolve();
  },
  // The bug the write session had: a removed file's folder was not fsynced before state.json
  // recorded the removal, so a power loss could bring the file back, to be pushed as new.
  "removals are left out of the cycle's flush": (w) => {
    w.tree.removalsInFlush = false;
  },
};

describe("engine model sanity", () => {
  for (const [name, sabotage] of Object.entries(SABOTAGE)) {
    it(`catches a world where ${name}`, async () => {
      const run = fc.check(
        fc.asyncProperty(scenarioArb, async ([policy, commands]) => (await runScenario(policy, commands, sabotage)).length === 0),
        { numRuns: 2000, seed: 7, endOnFailure: true },
      );
      expect((await run).failed).toBe(true);
    });
  }
});

describe("the model world runs the ports production runs", () => {
  it("stores the first pull's base texts as one pack, and flushes its writes before the state names them", async () => {
    const w = new World("merge");
    await w.open();
    await w.step((s) => s.fullSync());
    expect(w.store.packs).toEqual([3]);
    expect(w.tree.writeCalls).toEqual(["begin", "flush"]);
    expect(w.tree.unflushed.size).toBe(0);
    expect(Object.keys(w.store.saved?.files ?? {}).sort()).toEqual(["App.tsx", "components/Button.tsx", "index.css"]);
    expect(w.store.unflushedBases).toEqual([]);
  });

  it("flushes a pull's removals before the state records them", async () => {
    const w = new World("merge");
    await w.open();
    await w.step((s) => s.fullSync());
    w.service.generate((files) => files.delete("index.css"));
    await w.step((s) => s.fullSync());
    expect(w.tree.files.has("index.css")).toBe(false);
    expect(w.store.saved?.files["index.css"]).toBeUndefined();
    expect(w.tree.unflushedRemovals.size).toBe(0);
    expect(w.store.unflushedRemovals).toEqual([]);
  });
});
