import { describe, expect, it } from "vitest";
import type { LandedPush, OpenPush } from "./base-ledger.js";
import type { FileTriple } from "./model.js";
import { judgeWriters, type EditTexts, type WriterVerdicts } from "./races.js";
import { reconcileFile } from "./reconcile.js";

const texts = new Map([
  ["h-basis", "a\nb\nc\n"],
  ["h-sent", "a\nB ours\nc\n"],
  ["h-previous", "a\nb\nc\n"],
]);
const bases: EditTexts = texts;
/** judgeWriters, with its rebased triples written back into `files` (what each row then reads). */
async function judge(files: FileTriple[], ...rest: Parameters<typeof judgeWriters> extends [unknown, ...infer R] ? R : never): Promise<WriterVerdicts> {
  const judged = judgeWriters(files, ...rest);
  files.splice(0, files.length, ...judged.files);
  return judged.verdicts;
}
/** An open PATCH answered at monotonic 0 in this process, not yet confirmed. */
const open = (landed: LandedPush, remoteHash = "h-theirs", more: Partial<OpenPush> = {}): Map<string, OpenPush> =>
  new Map([
    [
      "App.tsx",
      {
        landed,
        record: { sent: landed.hash, artifactId: "a1", answeredAt: 0, confirmed: false, visibleToGenerations: false, mergedBack: landed.mergedBack === true },
        ownLate: false,
        remoteHash,
        ...more,
      },
    ],
  ]);
// The file here still holds what we sent.
const triple = (): FileTriple => ({ path: "App.tsx", base: "h-basis", local: { hash: "h-sent", binary: false, hasMarkers: false }, remote: undefined });
// A teammate's text made on the same old file, without our line.
const remote = { artifactId: "a1", texts: new Map([["App.tsx", "a\nb\nC theirs\n"]]) };

describe("judgeWriters: the raced triple is reconciled against what the edit was judged on", () => {
  it.each<[string, LandedPush, string | undefined]>([
    ["a PATCH that replaced a text: that text", { hash: "h-sent", previous: "h-previous", artifactId: "a1" }, "h-previous"],
    ["a PATCH over a remote deletion: its basis, the last synced text", { hash: "h-sent", previous: null, basis: "h-basis", artifactId: "a1" }, "h-basis"],
    ["a new file: no base", { hash: "h-sent", previous: null, artifactId: "a1" }, undefined],
  ])("%s", async (_name, landed, base) => {
    const files = [triple()];
    const v = await judge(files, open(landed), remote, bases, 1);
    expect([...v.raced]).toEqual(["App.tsx"]);
    expect(files[0]!.base).toBe(base);
  });

  it("a file saved back to what our PATCH replaced is still an edit here: its pull waits for the writer", async () => {
    const files = [{ ...triple(), base: "h-sent", local: { hash: "h-previous", binary: false, hasMarkers: false }, remote: { hash: "h-theirs" } }];
    const v = await judge(files, open({ hash: "h-sent", previous: "h-previous", artifactId: "a1" }), remote, bases, 1);
    expect([...v.raced]).toEqual(["App.tsx"]);
    expect(files[0]).toMatchObject({ base: "h-previous", localEdited: true });
    expect(reconcileFile(files[0]!, "merge")).toEqual([
      { kind: "pull", path: "App.tsx", remoteHash: "h-theirs", expectLocal: "h-previous", reason: "remote-changed", overLocalEdit: true },
    ]);
  });

  it("a file that still holds the synced text is no edit: a plain pull", async () => {
    const files = [{ ...triple(), base: "h-previous", local: { hash: "h-previous", binary: false, hasMarkers: false }, remote: { hash: "h-theirs" } }];
    await judge(files, open({ hash: "h-sent", previous: "h-previous", artifactId: "a1" }), remote, bases, 1);
    expect(files[0]!.localEdited).toBeUndefined();
    expect(reconcileFile(files[0]!, "merge")[0]).not.toHaveProperty("overLocalEdit");
  });

  it("a file deleted here has no edit to merge back: no rebase, the plain reconcile judges it", async () => {
    const files = [{ ...triple(), local: undefined }];
    const v = await judge(files, open({ hash: "h-sent", previous: "h-previous", artifactId: "a1" }), remote, bases, 1);
    expect(v.raced.size).toBe(0);
    expect(files[0]!.base).toBe("h-basis");
  });

  it("a remote text that holds our edit is no race", async () => {
    const files = [triple()];
    const v = await judge(
      files,
      open({ hash: "h-sent", previous: null, basis: "h-basis", artifactId: "a1" }),
      { artifactId: "a1", texts: new Map([["App.tsx", "a\nB ours\nC theirs\n"]]) },
      bases,
      1,
    );
    expect(v.raced.size).toBe(0);
    expect(files[0]!.base).toBe("h-basis");
  });

  it("a merged-back edit removed again: the removal stands (no rebase)", async () => {
    const files = [triple()];
    const v = await judge(files, open({ hash: "h-sent", previous: "h-previous", artifactId: "a1", mergedBack: true }), remote, bases, 1);
    expect([...v.removedAgain]).toEqual(["App.tsx"]);
    expect(v.raced.size).toBe(0);
    expect(files[0]!.base).toBe("h-basis");
  });

  it("our own late request: reconciled from the text it brought back, so the latest is sent again", async () => {
    const files = [triple()];
    const v = await judge(files, open({ hash: "h-sent", previous: "h-previous", artifactId: "a1" }, "h-old-ours", { ownLate: true }), remote, bases, 1);
    expect([...v.ownLate]).toEqual(["App.tsx"]);
    expect(files[0]!.base).toBe("h-old-ours");
  });
});
