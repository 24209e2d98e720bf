import { describe, expect, it } from "vitest";
import { findCli } from "./cli-path.js";
import { findConflictBlocks, inStateFolder } from "./conflict-markers.js";
import { checkDocument, copyLabel, DocumentMismatch, restorableCopies } from "./cli-documents.js";
import { NO_SIMPLE_BROWSER, openedOutside, previewAddress } from "./preview-address.js";

describe("findCli: the setting, else the workspace's node_modules/.bin, else PATH", () => {
  const base = { folders: ["/w"], pathEnv: "/usr/bin:/opt/bin", platform: "linux" as const };
  it.each<[string, string[], ReturnType<typeof findCli>]>([
    ["/custom/mpsync", ["/custom/mpsync", "/w/node_modules/.bin/mpsync"], { path: "/custom/mpsync" }],
    ["", ["/w/node_modules/.bin/mpsync", "/opt/bin/mpsync"], { path: "/w/node_modules/.bin/mpsync" }],
    ["", ["/opt/bin/mpsync"], { path: "/opt/bin/mpsync" }],
  ])("setting %j, files %j", (setting, files, found) => {
    expect(findCli({ ...base, setting, runnable: (p) => files.includes(p) })).toEqual(found);
  });
  it("says in one line what it could not find and how to install", () => {
    const none = findCli({ ...base, setting: "", runnable: () => false });
    expect("problem" in none && none.problem).toMatch(/^mpsync not found \(.*\): install it .* or set mpsync.path$/);
    const bad = findCli({ ...base, setting: "/nope/mpsync", runnable: () => false });
    expect("problem" in bad && bad.problem).toContain("mpsync.path names /nope/mpsync, which is not a program");
  });
});

describe("findConflictBlocks", () => {
  it("finds each complete block, not a lone marker", () => {
    const text = ["a", "<<<<<<< local", "x", "=======", "y", ">>>>>>> remote", "b", "<<<<<<< half", "z"].join("\n");
    expect(findConflictBlocks(text)).toEqual([{ start: 1, end: 5 }]);
    expect(findConflictBlocks("no markers\n")).toEqual([]);
  });
});

describe("CLI documents are read through json-output.schema.json", () => {
  it("accepts a restore --list document and orders its copies newest first", () => {
    const doc = checkDocument<{ copies: { at?: number; reason: string; file?: string }[] }>("restore", {
      ok: true,
      dir: "site",
      path: "App.tsx",
      copies: [
        { at: 1000, reason: "backup before pull", file: "/s/.mpsync/backups/a/App.tsx" },
        { reason: "last synced" },
        { at: 5000, reason: "conflict: yours", file: "/s/.mpsync/conflicts/b/App.tsx" },
      ],
      backups: { folders: 1, files: 1, bytes: 10, keepBackupsDays: 30 },
    });
    expect(restorableCopies(doc).map((c) => c.at)).toEqual([5000, 1000]);
    expect(copyLabel({ at: 0, reason: "backup" })).toBe("1970-01-01 00:00:00  backup");
  });
  it("reads the preview's address from mpsync dev's notice event", () => {
    const event = {
      time: "2026-11-27T15:00:00.000Z",
      event: "notice",
      dir: "site",
      message: "preview on http://127.0.0.1:5180/",
      url: "http://127.0.0.1:5180/",
    };
    expect(checkDocument<{ url?: string }>("event", event).url).toBe("http://127.0.0.1:5180/");
  });
  it("refuses a document the schema does not describe, with a line that says so", () => {
    expect(() => checkDocument("pause", { ok: true, designs: [{ dir: "site", surprise: 1 }] })).toThrow(DocumentMismatch);
  });
});

describe("previewAddress: where Open Preview points VS Code", () => {
  it("takes a forwarded port (a remote window), which keeps the page's root paths", () => {
    expect(previewAddress("http://127.0.0.1:5173/", "http://localhost:61234/")).toEqual({ url: "http://localhost:61234/" });
    expect(previewAddress("http://127.0.0.1:5173/", "http://127.0.0.1:5173/")).toEqual({ url: "http://127.0.0.1:5173/" });
  });
  it("keeps the local address over a path proxy (code-server's /proxy/PORT/), and says how to reach it from elsewhere", () => {
    const { url, note } = previewAddress("http://127.0.0.1:5173/", "http://127.0.0.1:8080/proxy/5173/");
    expect(url).toBe("http://127.0.0.1:5173/");
    expect(note).toContain("VS Code's proxy (/proxy/5173/) cannot serve its page");
    expect(note).toContain("ssh -L 5173:127.0.0.1:5173");
  });
  it("says in one message why the preview opened in the user's browser", () => {
    expect(openedOutside("http://127.0.0.1:5173/", NO_SIMPLE_BROWSER)).toBe(
      "mpsync: VS Code's Simple Browser is not available (built-in extension vscode.simple-browser disabled or absent), so the preview opened in your browser: http://127.0.0.1:5173/",
    );
  });
});

describe("inStateFolder: mpsync's own copies are neither problems nor saves", () => {
  it.each([
    ["/w/site/.mpsync/backups/2026-11-27/App.tsx", true],
    ["/w/site/.mpsync/conflicts/x/App.tsx.remote", true],
    ["/w/site/App.tsx", false],
    ["/w/site/.mpsyncrc", false],
    ["/w/site/src/.mpsync/App.tsx", false],
  ])("%s", (path, inside) => {
    expect(inStateFolder("/w/site", path)).toBe(inside);
  });
});
