import { describe, expect, it } from "vitest";
import type { BaseLedger, LandedPush } from "./base-ledger.js";
import type { FileTriple } from "./model.js";
import { rebaseRaces } from "./races.js";

const texts = new Map([
  ["h-basis", "a\nb\nc\n"],
  ["h-sent", "a\nB ours\nc\n"],
  ["h-previous", "a\nb\nc\n"],
]);
const bases = { getBase: async (hash: string) => texts.get(hash), putBase: async () => "unused" };
const ledgerWith = (landed: LandedPush) => ({ suspects: () => new Map([["App.tsx", landed]]) }) as unknown as BaseLedger;
const triple = (): FileTriple => ({ path: "App.tsx", base: "h-basis", local: undefined, remote: undefined });
// A teammate's text made on the same old file, without our line.
const remote = new Map([["App.tsx", "a\nb\nC theirs\n"]]);

describe("rebaseRaces: the raced triple is reconciled against what the edit was judged on", () => {
  it.each<[string, LandedPush, string | undefined]>([
    ["a PATCH that replaced a text: that text", { hash: "h-sent", previous: "h-previous", artifactId: "a1" }, "h-previous"],
    ["a PATCH over a remote deletion: its basis, the last synced text", { hash: "h-sent", previous: null, basis: "h-basis", artifactId: "a1" }, "h-basis"],
    ["a new file: no base", { hash: "h-sent", previous: null, artifactId: "a1" }, undefined],
  ])("%s", async (_name, landed, base) => {
    const files = [triple()];
    const raced = await rebaseRaces(files, ledgerWith(landed), remote, bases);
    expect([...raced]).toEqual(["App.tsx"]);
    expect(files[0]!.base).toBe(base);
  });

  it("a remote text that holds our edit is no race", async () => {
    const files = [triple()];
    const raced = await rebaseRaces(
      files,
      ledgerWith({ hash: "h-sent", previous: null, basis: "h-basis", artifactId: "a1" }),
      new Map([["App.tsx", "a\nB ours\nC theirs\n"]]),
      bases,
    );
    expect(raced.size).toBe(0);
    expect(files[0]!.base).toBe("h-basis");
  });
});
