import fc from "fast-check";
import { it, expect } from "vitest";
import { applyCommand, commandArb, quiet } from "./commands.js";
import { checkAlways } from "./invariants.js";
import { World } from "./world.js";
import { hashContent } from "../../src/sync/hash.js";

const muts: Record<string, (w: World) => void> = {
  casIgnored: (w) => {
    const orig = w.tree.replaceIfUnchanged.bind(w.tree);
    w.tree.replaceIfUnchanged = async (rel, _e, text) => orig(rel, w.tree.files.has(rel) ? hashContent(w.tree.files.get(rel)!) : undefined, text).then(() => "done" as const).catch(() => "done" as const);
  },
  noBackup: (w) => { w.tree.backup = async () => {}; },
  baseBeforeConfirm: (w) => {
    const orig = w.service.client.writeFiles;
    w.service.client.writeFiles = async (...a) => { try { return await orig(...a); } catch { return []; } };
  },
};
for (const [name, mut] of Object.entries(muts)) {
  it(name, async () => {
    let found = "";
    try {
      await fc.assert(fc.asyncProperty(fc.constantFrom("merge" as const, "keep-local" as const, "keep-remote" as const), fc.array(commandArb, { maxLength: 24 }), async (policy, cmds) => {
        const w = new World(policy); mut(w);
        await w.open(); await w.step((x) => x.fullSync());
        for (const c of cmds) { await applyCommand(w, c); const v = checkAlways(w); if (v.length) throw new Error(v.join("; ")); }
        const v = [...(await quiet(w)), ...checkAlways(w)]; if (v.length) throw new Error(v.join("; "));
      }), { numRuns: 3000, seed: 1 });
    } catch (e) { found = String(e).split("\n").filter((l) => /Counterexample|Error:/.test(l)).slice(0, 4).join("\n"); }
    console.log(name, "=>", found.slice(0, 1200));
    expect(found).not.toBe("");
  }, 600000);
}
