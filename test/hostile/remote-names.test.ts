/**
 * Hostile remote file names through a real pull (emulator + real engine + real temp folder).
 * The emulator's editFile takes any name, as a compromised or buggy service would send it.
 * After each pull the whole temp home is listed: every entry must sit inside the mapped folder
 * (or the harness's own config/state), nothing named `.git` may exist, and each refused name
 * must be reported.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { summarizeCycle, type CycleSummary } from "../../src/sync/cycle-summary.js";
import { startHarness, type Harness } from "../support/harness.js";
import { listTree } from "./tree.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SAFE_FILES = { "App.tsx": "export default 1;\n", "index.css": "body{}\n" };
/** Everything the harness itself puts in its temp home, besides the mapped folder. */
const HARNESS_ENTRIES = /^(\.syncrc|\.xdg-state(\/.*)?|\.xdg-config(\/.*)?)$/;

async function pullWith(hostile: Record<string, string>): Promise<{ h: Harness; s: CycleSummary }> {
  const harness = await startHarness({ files: SAFE_FILES });
  h = harness;
  for (const [name, content] of Object.entries(hostile)) harness.emu.control.editFile(harness.editorId, name, content);
  const [mapping] = await harness.runtime.mappings();
  const sync = await harness.runtime.openDesign(mapping!, harness.emit);
  return { h: harness, s: summarizeCycle(await sync.fullSync()) };
}

/** Every entry of the temp home is the harness's own or inside design/, and no `.git` exists anywhere. */
async function expectContained(harness: Harness): Promise<string[]> {
  const entries = await listTree(harness.home);
  const stray = entries.filter((e) => !(e.rel === "design" || e.rel.startsWith("design/") || HARNESS_ENTRIES.test(e.rel)));
  expect(stray, "entries outside the mapped folder").toEqual([]);
  const gitLike = entries.filter((e) => e.rel.split("/").some((seg) => seg.toLowerCase().replace(/[. ]+$/, "") === ".git"));
  expect(gitLike, "a .git entry was created").toEqual([]);
  expect(entries.filter((e) => e.kind === "symlink")).toEqual([]);
  return entries
    .filter((e) => e.kind === "file" && e.rel.startsWith("design/") && !e.rel.startsWith("design/.mpsync/"))
    .map((e) => e.rel.slice("design/".length));
}

function refusedSet(s: CycleSummary): Set<string> {
  return new Set(s.refusedNames.map((r) => r.name));
}

describe("hostile remote names through a real pull", () => {
  it("refuses escapes, encodings, control characters, reserved folders and oversize names; writes only safe files", async () => {
    // A unique tag makes "did it land outside?" checkable without listing the whole disk.
    const tag = `mpsync-hostile-${randomUUID().slice(0, 8)}`;
    const hostile = [
      `/tmp/${tag}-abs`,
      `${tmpdir()}/${tag}-abs2`,
      `C:\\${tag}`,
      `C:${tag}`,
      `../${tag}-up`,
      `sub/../../${tag}-up2`,
      `%2e%2e/${tag}-pct`,
      `..%2f${tag}-pct2`,
      `%252e%252e/${tag}-pct3`,
      `.%2e/${tag}-pct4`,
      `..\\${tag}-bs`,
      "a\\b.txt",
      "nul\u0000.txt",
      "ctl\u0001.txt",
      "line\nbreak.txt",
      "ret\rx.txt",
      "esc\u001b[31m.txt",
      "del\u007f.txt",
      "c1\u0085.txt",
      "lone\ud800.txt",
      `${"x".repeat(300)}.txt`,
      Array.from({ length: 11 }, () => "d".repeat(180)).join("/") + "/f.txt",
      ".git/hooks/pre-commit",
      ".git/config",
      ".git",
      ".GIT/config",
      ".git./config",
      ".git /config",
      "sub/.git/hooks/post-checkout",
      ".g\u200cit/config",
      "\ufeff.git/config",
      "GIT~1/config",
      ".mpsync/state.json",
      ".MPSYNC/state.json",
      "sub/.mpsync/x",
      ".",
      "..",
      "...",
      "./dot.txt",
      "a//b.txt",
      "trailing/",
      "",
    ];
    const { h: harness, s } = await pullWith(Object.fromEntries(hostile.map((n, i) => [n, `pwned ${i}\n`])));

    const refused = refusedSet(s);
    expect(
      hostile.filter((n) => !refused.has(n)),
      "names that were not refused",
    ).toEqual([]);
    for (const r of s.refusedNames) {
      expect(r.reason, `reason for ${JSON.stringify(r.name)}`).toMatch(/\S/);
      expect(r.reason).not.toContain("\n");
    }
    expect(s.pulled.sort()).toEqual(Object.keys(SAFE_FILES).sort());
    expect((await expectContained(harness)).sort()).toEqual(Object.keys(SAFE_FILES).sort());
    for (const outside of [`/tmp/${tag}-abs`, join(tmpdir(), `${tag}-abs2`), join(dirname(harness.home), `${tag}-up`)]) {
      expect(existsSync(outside), outside).toBe(false);
    }
    expect((await readdir(dirname(harness.home))).filter((n) => n.startsWith(tag))).toEqual([]);
    // Each refusal is also told to the user (a notice event names it).
    const notices = harness.events.filter((e) => e.event === "notice").map((e) => e.message);
    expect(notices.filter((m) => m.startsWith("refused remote file name"))).toHaveLength(hostile.length);
    // A second pull stays quiet about the files and still refuses (no state learned from them).
    const [mapping] = await harness.runtime.mappings();
    const again = summarizeCycle(await (await harness.runtime.openDesign(mapping!, harness.emit)).fullSync());
    expect(again.pulled).toEqual([]);
    expect(refusedSet(again).size).toBe(hostile.length);
  });

  it("a Unicode look-alike of .git is either refused or written as its own folder, never into .git", async () => {
    const lookalikes = [".g\u0456t/config", "\u0491it/x", ".gi\u0442/hooks/pre-commit", "\uff0egit/config"];
    const { h: harness, s } = await pullWith(Object.fromEntries(lookalikes.map((n) => [n, "[core]\n"])));
    const written = await expectContained(harness);
    for (const name of lookalikes) {
      const outcome = refusedSet(s).has(name) ? "refused" : written.includes(name) ? "written" : "missing";
      expect(outcome, name).not.toBe("missing");
    }
  });

  it("refuses a decomposed (NFD) name, and its NFC twin does not collide with it", async () => {
    const nfd = "caf\u0065\u0301.tsx";
    const nfc = "caf\u00e9.tsx";
    const { h: harness, s } = await pullWith({ [nfd]: "nfd\n", [`only-${nfd}`]: "nfd alone\n", [nfc]: "nfc\n" });
    const written = await expectContained(harness);
    expect(refusedSet(s).has(nfd)).toBe(true);
    expect(refusedSet(s).has(`only-${nfd}`)).toBe(true);
    // The NFC name is either written alone (with its own content) or refused as a twin: never the NFD content.
    if (written.includes(nfc)) expect(await harness.readLocal(nfc)).toBe("nfc\n");
    else expect(refusedSet(s).has(nfc)).toBe(true);
    expect(written.some((n) => n.normalize("NFC") !== n)).toBe(false);
  });

  it("refuses both names of a case-only pair (a case-insensitive disk would merge them), including folder twins", async () => {
    const { h: harness, s } = await pullWith({ "Button.tsx": "upper\n", "button.tsx": "lower\n", "Lib/a.ts": "A\n", "lib/b.ts": "B\n" });
    for (const name of ["Button.tsx", "button.tsx", "Lib/a.ts", "lib/b.ts"]) expect(refusedSet(s).has(name), name).toBe(true);
    expect((await expectContained(harness)).sort()).toEqual(Object.keys(SAFE_FILES).sort());
  });

  // Regression: the jail checked names one by one, so `a` and `a/b` both pass; writing `a/b`
  // over the file `a` throws a raw EEXIST out of the executor and aborts the whole cycle, every
  // time, so one hostile name blocks the design for good.
  it("a name that is also the folder of another name: one wins or both are refused, the rest of the pull goes on", async () => {
    // Sorted order writes `a` first, then `a/b` needs `a` to be a folder.
    const { h: harness, s } = await pullWith({ a: "file a\n", "a/b": "file a/b\n", "z/y.ts": "z\n" });
    const written = await expectContained(harness);
    expect(written).toEqual(expect.arrayContaining([...Object.keys(SAFE_FILES), "z/y.ts"]));
    const fate = (n: string): string => (written.includes(n) ? "written" : refusedSet(s).has(n) ? "refused" : "lost");
    expect([fate("a"), fate("a/b")]).not.toContain("lost");
  });

  // Regression, same cause on the local side: a remote file whose name is a local folder
  // (here an ignored one) makes the write throw "not a regular file" and aborts the cycle.
  it("a remote file named like a local (ignored) folder is reported, and the rest of the pull goes on", async () => {
    const harness = await startHarness({ files: SAFE_FILES, syncrc: { ignore: ["build/"] } });
    h = harness;
    const [mapping] = await harness.runtime.mappings();
    const sync = await harness.runtime.openDesign(mapping!, harness.emit);
    await sync.fullSync();
    await harness.writeLocal("build/out.js", "local build output\n");
    harness.emu.control.setFiles(harness.editorId, { ...SAFE_FILES, build: "remote file named build\n", "new.ts": "new\n" }, { newArtifact: true });
    const s = summarizeCycle(await sync.fullSync());
    expect(s.pulled).toContain("new.ts");
    expect(await harness.readLocal("build/out.js")).toBe("local build output\n");
    await expectContained(harness);
  });

  it("never writes through a local symlink (a linked folder or a linked file), whatever the pull's outcome", async () => {
    const outside = await mkdtemp(join(tmpdir(), "mpsync-outside-"));
    try {
      await writeFile(join(outside, "target.txt"), "outside original\n");
      const harness = await startHarness({ files: SAFE_FILES });
      h = harness;
      const [mapping] = await harness.runtime.mappings();
      const sync = await harness.runtime.openDesign(mapping!, harness.emit);
      await sync.fullSync();
      await mkdir(harness.root, { recursive: true });
      await symlink(outside, join(harness.root, "linkdir"));
      await rm(join(harness.root, "index.css"));
      await symlink(join(outside, "target.txt"), join(harness.root, "index.css"));
      harness.emu.control.setFiles(
        harness.editorId,
        { ...SAFE_FILES, "index.css": "remote css\n", "linkdir/pwn.txt": "pwned\n", "linkdir/target.txt": "pwned\n" },
        { newArtifact: true },
      );
      // A refusal may reject the cycle or be reported; either way the link targets stay untouched.
      await sync.fullSync().catch(() => undefined);
      expect((await readdir(outside)).sort()).toEqual(["target.txt"]);
      expect(await readFile(join(outside, "target.txt"), "utf8")).toBe("outside original\n");
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
