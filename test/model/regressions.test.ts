/**
 * Counterexamples the engine model found, shrunk by fast-check and kept as focused tests.
 * Each keeps its shrunk counterexample in its comment.
 */
import { describe, expect, it } from "vitest";
import { applyCommand, quiet, type Command } from "./commands.js";
import { checkAlways } from "./invariants.js";
import { World } from "./world.js";
import { runScenario } from "./scenario.js";
import { CHECK_SWEEP_ROUNDS, RECENT_MS } from "../../src/sync/check-scope.js";
import { hashContent } from "../../src/core/hash.js";

async function started(policy: "merge" | "keep-local" | "keep-remote" = "merge"): Promise<World> {
  const w = new World(policy);
  await w.open();
  await w.step((s) => s.fullSync());
  return w;
}

async function run(w: World, commands: Command[]): Promise<string[]> {
  const found: string[] = [];
  for (const c of commands) found.push(...(await applyCommand(w, c)), ...checkAlways(w));
  return found;
}

describe("case twins in the remote artifact (design-sync.ts #triples)", () => {
  // The artifact still lists App.tsx; only its new twin `app.tsx` is hostile. Refusing the pair
  // made App.tsx look absent remotely, so the engine removed the synced local copy.
  it("a twin added by a generation never removes the legitimate local file", async () => {
    const w = await started();
    const app = w.tree.files.get("App.tsx");
    w.service.generate((files) => files.set("app.tsx", "hostile\n"));
    await w.step((s) => s.fullSync());
    expect(w.tree.files.get("App.tsx")).toBe(app);
    expect(w.store.saved?.files["App.tsx"]).toBeDefined();
  });

  // Shrunk from the model: ["merge",[{"k":"crlf","path":2},{"k":"generate","edits":[{"path":0,
  // "op":"edit","line":0}],"hostile":"Components/x.tsx"}]]. A folder twin hides
  // components/Button.tsx: the local edit is pushed as modify-beats-delete, then the next full
  // sync removes the very file it just pushed (the two syncs flip-flop forever).
  it("a folder twin does not make a pushed file flip-flop between push and remove", async () => {
    const w = await started();
    const found = await run(w, [{ k: "crlf", path: 2 }]);
    w.service.generate((files) => files.set("Components/x.tsx", "hostile\n"));
    found.push(...(await quiet(w)));
    expect(found).toEqual([]);
    expect(w.tree.files.has("components/Button.tsx")).toBe(true);
  });

  // The hidden twin reads as "removed remotely", so a local edit is pushed as
  // modify-beats-delete without the remote content ever being read: the generation's own
  // edit of components/Button.tsx is overwritten in place and exists nowhere any more.
  it("a twin never lets a push overwrite a remote edit unread", async () => {
    const w = await started();
    await applyCommand(w, { k: "edit", path: 2, line: 1 });
    w.service.generate((files) => {
      const button = files.get("components/Button.tsx") ?? "";
      files.set("components/Button.tsx", w.editLine(button, 3, "g"));
      files.set("Components/x.tsx", "hostile\n");
    });
    for (const [rel, text] of w.service.active().files) w.noteRemote(rel, text);
    await w.step((s) => s.fullSync());
    expect(checkAlways(w)).toEqual([]);
  });
});

describe("a PATCH whose answer was lost", () => {
  // The model test's counterexample (seed 1082424397): the PATCH landed but its answer was
  // schema-invalid; the user then deleted the file. The journal only adopted the pushed
  // content while the file still held it, so the base stayed at the old content and the
  // deletion looked like a remote change (the file was neither re-created nor settled).
  it("then a local delete: the pushed content becomes the base and the delete is reported", async () => {
    const { runScenario } = await import("./scenario.js");
    const commands: Command[] = [
      { k: "fault", kind: "schema-invalid", target: "writeFiles" },
      { k: "burst", path: 0, saves: 2 },
      { k: "full" },
      { k: "push" },
      { k: "delete", path: 0 },
    ] as Command[];
    expect(await runScenario("merge", commands)).toEqual([]);
  });
});

describe("a PATCH that failed, then a remote change of the same file", () => {
  // The journal took "the remote moved off the old hash" as proof that the failed PATCH had
  // landed: the unsent edit became the base, the remote change was pulled over it, and the
  // edit survived only as a backup, with no conflict reported.
  for (const kind of ["server-error", "timeout", "bad-request"] as const) {
    for (const remote of ["webEdit", "generate"] as const) {
      it(`${kind} then ${remote} of another line: one clean merge, pushed`, async () => {
        const w = await started();
        await run(w, [{ k: "fault", kind, target: "writeFiles" }, { k: "edit", path: 0, line: 0 }, { k: "push" }]);
        const edited = w.tree.files.get("App.tsx") as string;
        const remoteBefore = w.service.active().files.get("App.tsx") as string;
        expect(remoteBefore).not.toBe(edited); // the PATCH did not land
        if (remote === "webEdit") await run(w, [{ k: "webEdit", path: 0, line: 3 }]);
        else await run(w, [{ k: "generate", edits: [{ path: 0, op: "edit", line: 3 }], hostile: undefined }]);
        const remoteEdit = w.service.active().files.get("App.tsx") as string;
        const found = await run(w, [{ k: "full" }, { k: "push" }]);
        found.push(...(await quiet(w)));
        expect(found).toEqual([]);
        const merged = w.service.active().files.get("App.tsx") as string;
        expect(merged.split("\n")[0]).toBe(edited.split("\n")[0]);
        expect(merged.split("\n")[3]).toBe(remoteEdit.split("\n")[3]);
        expect(w.tree.files.get("App.tsx")).toBe(merged);
      });
    }
  }
});

describe("one unwritable path", () => {
  it("is reported for that path; every other action of the cycle runs, the push included; a later cycle retries it", async () => {
    const w = await started();
    await applyCommand(w, { k: "edit", path: 0, line: 0 });
    w.service.generate((files) => {
      files.set("index.css", w.editLine(files.get("index.css") ?? "", 1, "g"));
      files.set("components/Button.tsx", w.editLine(files.get("components/Button.tsx") ?? "", 1, "g"));
    });
    const before = w.tree.beforeWrite;
    let locked = true;
    w.tree.beforeWrite = async (rel, op) => {
      if (locked && rel === "components/Button.tsx") throw Object.assign(new Error(`EACCES: permission denied, open '${rel}'`), { code: "EACCES" });
      await before?.(rel, op);
    };
    await w.step((s) => s.fullSync());
    const failed = w.events.filter((e) => e.event === "error").filter((e) => e.code === "EACCES");
    expect(failed.map((e) => e.files)).toEqual([["components/Button.tsx"]]);
    expect(w.tree.files.get("index.css")).toBe(w.service.active().files.get("index.css"));
    expect(w.service.active().files.get("App.tsx")).toBe(w.tree.files.get("App.tsx"));
    expect(w.tree.files.get("components/Button.tsx")).not.toBe(w.service.active().files.get("components/Button.tsx"));
    locked = false;
    await w.step((s) => s.fullSync());
    expect(w.tree.files.get("components/Button.tsx")).toBe(w.service.active().files.get("components/Button.tsx"));
  });
});

describe("a pulled file and its journal", () => {
  // The journal is written while the local writes prepare (cycle-steps.ts): each write still
  // takes its name only after the journal naming its text is saved, however slow that save.
  it("takes its name only once the journal naming its text is saved, and after its backup", async () => {
    const w = await started();
    w.service.generate((files) => files.set("index.css", w.editLine(files.get("index.css") ?? "", 1, "g")));
    const before = w.tree.files.get("index.css");
    const save = w.store.save.bind(w.store);
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    w.store.save = async (state, options) => {
      await turn();
      await turn();
      return save(state, options);
    };
    const atWrite: [string | undefined, boolean][] = [];
    const beforeWrite = w.tree.beforeWrite;
    w.tree.beforeWrite = async (rel, op) => {
      if (rel === "index.css") atWrite.push([w.store.saved?.pending?.[rel], w.tree.backups.some((b) => b.rel === rel && b.content === before)]);
      await beforeWrite?.(rel, op);
    };
    await w.step((s) => s.fullSync());
    expect(atWrite).toEqual([[hashContent(w.service.active().files.get("index.css") ?? ""), true]]);
    expect(w.tree.files.get("index.css")).toBe(w.service.active().files.get("index.css"));
  });
});

describe("found by the model this session", () => {
  // pull --force's restore of an emptied folder must happen in the pass that empties it (files
  // the plan removes do not count as present), or the next forced pass is not quiet.
  it("a local delete, then a generation removing the other files: one forced pass restores, the next is quiet", async () => {
    const { runScenario } = await import("./scenario.js");
    const commands = [
      { k: "delete", path: 2 },
      {
        k: "generate",
        edits: [
          { path: 1, op: "remove", line: 0 },
          { path: 0, op: "remove", line: 0 },
        ],
        hostile: undefined,
      },
    ] as Command[];
    expect(await runScenario("merge", commands)).toEqual([]);
  });

  // A refused new local name (a case twin of a hostile remote name) changed nothing else in the
  // cycle, so state.json was not saved and status never saw it.
  it("a refused local name is saved in state even when nothing else changed", async () => {
    const { runScenario } = await import("./scenario.js");
    const commands = [
      { k: "generate", edits: [{ path: 0, op: "edit", line: 0 }], hostile: 5 },
      { k: "generate", edits: [{ path: 0, op: "remove", line: 0 }], hostile: undefined },
      { k: "edit", path: 1, line: 0 },
      { k: "push" },
      { k: "create", path: 0 },
    ] as Command[];
    expect(await runScenario("merge", commands)).toEqual([]);
  });
});

describe("content the service refused as too large (413)", () => {
  // Shrunk from the model: ["merge",[{"k":"mateEdit","path":2,"line":0},{"k":"bodyLimit",
  // "files":0},{"k":"mateSync"},{"k":"edit","path":2,"line":2}]]. The teammate's edit is refused
  // (a body limit of 0 files), so it waits until its content changes; the merge with this
  // folder's edit changes it, and the teammate sends the merge. That PATCH comes from the
  // teammate's last settle, after this folder's second quiet sync, and is not that sync's doing.
  it("a refused teammate edit goes out once a merge changed it, and both edits reach the service", async () => {
    const w = await started();
    expect(await run(w, [{ k: "mateEdit", path: 2, line: 0 }, { k: "bodyLimit", files: 0 }, { k: "mateSync" }, { k: "edit", path: 2, line: 2 }])).toEqual([]);
    expect(await quiet(w)).toEqual([]);
    const button = w.service.active().files.get("components/Button.tsx") ?? "";
    expect(button.split("\n").filter((l) => l.includes("edited"))).toHaveLength(2);
  });
});

describe("a push sent again in halves after a 413", () => {
  // Halves sent on the strength of the cycle's one pre-push read would overwrite a web edit
  // landing after the 413, unseen (the read-back finds the text it sent): every PATCH after the
  // first reads its files again.
  it("does not overwrite a web edit that landed after the 413", async () => {
    const w = await started();
    expect(await run(w, [{ k: "resendRace", path: 0, other: 1, line: 0, webLine: 2 }])).toEqual([]);
    expect(await quiet(w)).toEqual([]);
    const app = w.service.active().files.get("App.tsx") ?? "";
    expect(app.split("\n").filter((l) => l.includes("edited"))).toHaveLength(2);
  });

  it("the same, with the edited file in the second half", async () => {
    const w = await started();
    expect(await run(w, [{ k: "resendRace", path: 1, other: 0, line: 0, webLine: 2 }])).toEqual([]);
    expect(await quiet(w)).toEqual([]);
  });
});

describe("a save caught half-written", () => {
  // A push that reads each file once can send an empty file; as a model move:
  // ["merge",[{"k":"halfSave","path":0,"line":0},{"k":"push"}]]. The text sent must hash as
  // the first read did.
  it("is not sent until it is whole, and then the whole text goes out", async () => {
    const w = await started();
    expect(await run(w, [{ k: "halfSave", path: 0, line: 0 }, { k: "push" }])).toEqual([]);
    expect(await run(w, [{ k: "push" }])).toEqual([]);
    const sent = w.service.active().files.get("App.tsx");
    expect(sent).toBe(w.tree.files.get("App.tsx"));
    expect(w.halfTexts.get("App.tsx")?.has(sent ?? "")).toBe(false);
  });

  it("`mpsync push`: the scan that finds the change is the first read; the half is not sent either", async () => {
    const w = await started();
    expect(await run(w, [{ k: "halfSave", path: 0, line: 0 }, { k: "pushCommand" }])).toEqual([]);
    expect(w.service.active().files.get("App.tsx")).not.toBe(w.tree.files.get("App.tsx"));
    expect(await run(w, [{ k: "pushCommand" }])).toEqual([]);
    const sent = w.service.active().files.get("App.tsx");
    expect(sent).toBe(w.tree.files.get("App.tsx"));
    expect(w.halfTexts.get("App.tsx")?.has(sent ?? "")).toBe(false);
  });
});

describe("other writers: each found by the model when its fix is reverted", () => {
  // Shrunk: ["merge",[{"k":"edit","path":0,"line":0},{"k":"retriedPush"}]] with writeFiles
  // marked idempotent: the client repeated the PATCH over the web editor's save ("lost line
  // r5 edited", and a blind overwrite).
  it("a PATCH whose first attempt failed is not repeated over a web save; the next cycle merges both", async () => {
    const w = await started();
    const found = await run(w, [{ k: "edit", path: 0, line: 3 }, { k: "retriedPush" }, { k: "push" }]);
    expect(found).toEqual([]);
    expect(await quiet(w)).toEqual([]);
    const app = w.service.active().files.get("App.tsx") ?? "";
    expect(app).toMatch(/^u\d+ edited$/m);
    expect(app).toMatch(/^r\d+ edited$/m);
  });

  // Shrunk: ["merge",[{"k":"sameMoment","path":0,"line":0,"mateLine":0}]] without races.ts:
  // the teammate's answered PATCH was overwritten by ours; it then pulled our text over its
  // own edit ("lost line m5 edited", only in its backups).
  it("two saves of the same line at the same moment: a conflict is reported, both texts live", async () => {
    const w = await started();
    expect(await run(w, [{ k: "sameMoment", path: 0, line: 0, mateLine: 0 }, { k: "mateSync" }])).toEqual([]);
    expect(w.mate?.events.some((e) => e.event === "conflict" && e.files?.includes("App.tsx") === true)).toBe(true);
  });

  it("two saves of different lines at the same moment: both end merged on the service and in both folders", async () => {
    const w = await started();
    expect(await run(w, [{ k: "sameMoment", path: 0, line: 0, mateLine: 2 }, { k: "mateSync" }])).toEqual([]);
    expect(await quiet(w)).toEqual([]);
    const app = w.service.active().files.get("App.tsx") ?? "";
    expect(app).toMatch(/^u\d+ edited$/m);
    expect(app).toMatch(/^m\d+ edited$/m);
    expect(w.tree.files.get("App.tsx")).toBe(app);
    expect(w.mate?.tree.files.get("App.tsx")).toBe(app);
    expect(w.mate?.events.some((e) => e.event === "conflict" && e.reapplied === true && /re-applied your edit to App.tsx/.test(e.message ?? ""))).toBe(true);
  });

  // Shrunk (a 6,000-history soak): ["merge",[{"k":"mateSync"},{"k":"generate","edits":[{"path":2,
  // "op":"remove","line":0},{"path":0,"op":"edit","line":0}]},{"k":"sameMoment","path":2,
  // "line":0,"mateLine":0}]]. A version removed Button.tsx; both folders edited it at the same
  // moment and pushed it back (modify beats delete), so each PATCH replaced nothing. The
  // teammate's edit was judged against an empty file: our text shares 3 of its 4 lines, so it
  // passed for one built on the edit, and the teammate pulled it ("lost line m6 edited").
  it("an edit pushed over a remote deletion, then overwritten by another writer's: a conflict, not a pull", async () => {
    const found = await runScenario("merge", [
      { k: "mateSync" },
      {
        k: "generate",
        edits: [
          { path: 2, op: "remove", line: 0 },
          { path: 0, op: "edit", line: 0 },
        ],
        hostile: undefined,
      },
      { k: "sameMoment", path: 2, line: 0, mateLine: 0 },
    ]);
    expect(found).toEqual([]);
  });

  // Shrunk: ["merge",[{"k":"staleVersion","path":3,"genPath":0,"line":0}]] with findDisplaced
  // looking at pulls only: the pushed new file was removed locally with no word ("lost line
  // new4 line 0").
  // Shrunk (a soak, seed -1730304658): [{"k":"staleVersion","path":2,
  // "genPath":0,"line":0},{"k":"edit","path":2,"line":2},{"k":"crashMid","after":3,"full":false}].
  // Edited again after the push, the file met the version built without the push as a
  // conflict: the merge took the version's side of the pushed line, with no report before the
  // kill ("lost line u4 edited"). A version built without a push is a race (other-writers.ts):
  // the pushed line is merged back with the later edit, and said.
  it("an edit made after the push does not hide a displaced pushed line: it is merged back and said", async () => {
    const w = await started();
    expect(
      await run(w, [
        { k: "staleVersion", path: 2, genPath: 0, line: 0 },
        { k: "edit", path: 2, line: 2 },
        { k: "crashMid", after: 3, full: false },
        { k: "full" },
      ]),
    ).toEqual([]);
    expect(w.events.some((e) => e.event === "conflict" && e["reapplied"] === true && e.files?.includes("components/Button.tsx") === true)).toBe(true);
  });

  it("a pushed new file a version built before it lacks is reported when it is removed", async () => {
    const w = await started();
    expect(await run(w, [{ k: "staleVersion", path: 3, genPath: 0, line: 0 }, { k: "full" }])).toEqual([]);
    const event = w.events.find((e) => e.event === "conflict" && e.files?.includes("lib/util.ts") === true);
    expect(event?.message).toMatch(/built without this file you pushed/);
    expect(w.tree.files.has("lib/util.ts")).toBe(false);
  });
});

describe("the content check reads a slice of the cold files", () => {
  // Shrunk from a 6,000-run soak (seed -225362680): [staleVersion lib/util.ts, removeFolder,
  // checks x 11]. Checks halted by the missing folder moved the sweep on and counted against it.
  it("checks halted by a missing folder neither move the sweep nor count against it", async () => {
    const w = await started();
    expect(await run(w, [{ k: "staleVersion", path: 3, genPath: 0, line: 0 }, { k: "removeFolder" }, { k: "checks", count: 11, webEdit: undefined }])).toEqual(
      [],
    );
  });

  it("a web edit of a file nobody touched for an hour arrives within CHECK_SWEEP_ROUNDS checks", async () => {
    const w = await started();
    await w.clock.sleep(RECENT_MS + 1);
    w.webEdit("components/Button.tsx", 2);
    const remote = w.service.active().files.get("components/Button.tsx");
    let checks = 0;
    while (w.tree.files.get("components/Button.tsx") !== remote && checks < CHECK_SWEEP_ROUNDS) {
      await w.step((s) => s.checkRemote());
      checks += 1;
    }
    expect(w.tree.files.get("components/Button.tsx")).toBe(remote);
    expect(checkAlways(w)).toEqual([]);
  });

  it("a local change whose push was lost (the watcher missed it) goes out with the next check", async () => {
    const w = await started();
    w.userWrite("notes.md", w.freshText("new"));
    w.pending.clear();
    await w.step((s) => s.checkRemote());
    expect(w.service.active().files.get("notes.md")).toBe(w.tree.files.get("notes.md"));
  });

  it("a recently pushed file is read by every check", async () => {
    const w = await started();
    expect(await run(w, [{ k: "edit", path: 1, line: 0 }, { k: "push" }])).toEqual([]);
    w.webEdit("index.css", 2);
    await w.step((s) => s.checkRemote());
    expect(w.tree.files.get("index.css")).toBe(w.service.active().files.get("index.css"));
  });
});

describe("a version built without a push is a race (other-writers.ts)", () => {
  // Shrunk (the model, 3,000 runs): [staleVersion App.tsx, staleVersion Button.tsx]. The first
  // version without the push got it merged back; a second version, also started before that
  // merge-back landed, removed it again: that removal stands, said with `mpsync restore`.
  it("a second version without the merged-back edit: the removal stands and is said with restore", async () => {
    const w = await started();
    expect(await run(w, [{ k: "staleVersion", path: 0, genPath: 1, line: 0 }, { k: "staleVersion", path: 1, genPath: 0, line: 0 }, { k: "full" }])).toEqual([]);
    expect(w.events.some((e) => e.event === "notice" && String(e.message).includes("mpsync restore App.tsx"))).toBe(true);
  });

  // Shrunk (the model, 3,000 runs): [staleVersion App.tsx, removeFolder, edit Button.tsx]. The
  // version lacking the push was taken for a race although the file was gone here: nothing to
  // merge back, and the file was left remote only.
  it("a file deleted here has no edit to merge back: the folder's recovery restores it", async () => {
    const w = await started();
    expect(await run(w, [{ k: "staleVersion", path: 0, genPath: 1, line: 0 }, { k: "removeFolder" }, { k: "edit", path: 1, line: 0 }, { k: "quiet" }])).toEqual(
      [],
    );
  });
});

describe("a late request of ours meets a web edit a refused conflict write had read", () => {
  // Shrunk (the model, 3,000 runs, keep-remote): [raceNextWrite lib/util.ts, edit lib/util.ts,
  // latePush lib/util.ts]. The web editor created the file while our PATCH creating it was
  // held; the conflict's write was refused by a save landing first, and the late PATCH then
  // erased the web text on the service: it lived only in that cycle's memory.
  it("the service's side of a conflict is kept before the file is written", async () => {
    const w = await started("keep-remote");
    expect(
      await run(w, [
        { k: "raceNextWrite", path: 3 },
        { k: "edit", path: 3, line: 0 },
        { k: "latePush", path: 3, line: 0, webLine: 0 },
      ]),
    ).toEqual([]);
  });
});

describe("a PATCH whose answer was lost, for a file deleted here before any read", () => {
  // Shrunk (the model, 1,000 runs): [edit lib/util.ts (new), failedPush dropped-after-write,
  // delete lib/util.ts, edit App.tsx, push]. App.tsx's answered PATCH cleared the journal of the
  // unanswered one as if replaced, and lib/util.ts was left on the service with no base: neither
  // pulled back nor a local deletion.
  it("stays in flight until a read finds where it went", async () => {
    const w = await started();
    expect(
      await run(w, [
        { k: "edit", path: 3, line: 0 },
        { k: "failedPush", kind: "dropped-after-write" },
        { k: "delete", path: 3 },
        { k: "edit", path: 0, line: 0 },
        { k: "push" },
        { k: "quiet" },
      ]),
    ).toEqual([]);
  });
});

describe("our own late request meets a folder that vanished", () => {
  // Shrunk (the model, 3,000 runs): [latePush App.tsx, removeFolder, staleVersion Button.tsx].
  // The late text was taken as ours to send again, over a file that no longer existed here:
  // the folder's recovery then left App.tsx on the service only.
  it("a file gone here is reconciled plainly: the recovery writes it back", async () => {
    const w = await started();
    expect(
      await run(w, [
        { k: "latePush", path: 0, line: 0, webLine: 0 },
        { k: "removeFolder" },
        { k: "staleVersion", path: 1, genPath: 1, line: 0 },
        { k: "quiet" },
      ]),
    ).toEqual([]);
  });
});

describe("a slow writer over a raced file saved back to what our PATCH replaced", () => {
  // Shrunk (the model, seed 777, 5,000 runs): [slowWrite Button.tsx, staleVersion App.tsx,
  // slowWrite Button.tsx with a web edit]. The race judged the file against what our PATCH
  // replaced (an empty text), the truncate made it that text again, and the pull over it was
  // taken for a write over an unchanged file: the writer's bytes went into the old file.
  it("the pull is a write over a local edit: the late write is recovered and said", async () => {
    const w = await started();
    expect(
      await run(w, [
        { k: "slowWrite", path: 2, line: 0, chunked: false, web: false },
        { k: "staleVersion", path: 0, genPath: 0, line: 0 },
        { k: "slowWrite", path: 2, line: 0, chunked: false, web: true },
        { k: "quiet" },
      ]),
    ).toEqual([]);
    expect(w.events.some((e) => "code" in e && e.code === "LATE_WRITE")).toBe(true);
  });
});

describe("a checkout of the version our unanswered PATCH landed on", () => {
  // Shrunk (the model, seed 4242, 5,000 runs): [edit index.css, failedPush dropped-after-write,
  // generate, sameMoment App.tsx, chooseVersion back 1]. The chosen version holds the text of
  // our PATCH whose answer was lost; it was taken for that request arriving late, and the newer
  // text sent again over the user's choice.
  it("the text is the user's choice: pulled, no late-request notice, nothing sent back", async () => {
    const w = await started();
    expect(
      await run(w, [
        { k: "edit", path: 1, line: 2 },
        { k: "failedPush", kind: "dropped-after-write" },
        { k: "generate", edits: [{ path: 1, op: "edit", line: 0 }], hostile: undefined },
        { k: "sameMoment", path: 0, line: 0, mateLine: 0 },
        { k: "chooseVersion", back: 1 },
      ]),
    ).toEqual([]);
    expect(w.events.some((e) => e.message.includes("reached the service late"))).toBe(false);
  });
});

describe("the latest content sent again over our own late request", () => {
  // Shrunk (the model, seed 8080, 4,000 runs): [staleVersion App.tsx, latePush index.css with a
  // web edit, switchVersion back 1]. The text sent again was recorded as an edit of our late
  // text, so the web editor's line became "our edit": a version without it got that line merged
  // back (an echo) and the user's own line dropped.
  it("keeps the edit it carried: a version without it gets the user's line merged back, not the web editor's", async () => {
    const w = await started();
    expect(
      await run(w, [
        { k: "staleVersion", path: 0, genPath: 0, line: 0 },
        { k: "latePush", path: 1, line: 0, webLine: 2 },
        { k: "switchVersion", back: 1 },
        { k: "quiet" },
      ]),
    ).toEqual([]);
  });
});
