import { describe, expect, it } from "vitest";
import { FolderStatus } from "./folder-status.js";

const H1 = "1".repeat(64);
const H2 = "2".repeat(64);

describe("FolderStatus", () => {
  it("moves the artifact, saying whether it moved; forgetting it leaves none", () => {
    const s = new FolderStatus({ artifactId: "art-1" });
    expect(s.moveTo("art-1")).toBe(false);
    expect(s.moveTo("art-2")).toBe(true);
    expect(s.artifactId).toBe("art-2");
    s.forgetArtifact();
    expect(s.toJSON().artifactId).toBeUndefined();
  });

  it("a halt is held until cleared, and clearing answers the halt it ended (once)", () => {
    const s = new FolderStatus({});
    expect(s.clearHalt()).toBeUndefined();
    s.halt("the folder vanished", 7);
    expect(s.halted).toEqual({ reason: "the folder vanished", at: 7 });
    expect(s.clearHalt()).toEqual({ reason: "the folder vanished", at: 7 });
    expect(s.halted).toBeUndefined();
    expect(s.clearHalt()).toBeUndefined();
  });

  it("a refused content is kept until that path is taken; a new refusal replaces the old hash", () => {
    const s = new FolderStatus({ refusedContent: { "big.ts": H1, "new.ts": H1 } });
    s.noteContent(new Map([["big.ts", H2]]), ["new.ts"]);
    expect(s.refusedContentOf("big.ts")).toBe(H2);
    expect(s.refusedContentOf("new.ts")).toBeUndefined();
    // A cycle records its answers even when there are none (state.json then holds `{}`, as before).
    s.noteContent(new Map(), ["big.ts"]);
    expect(s.toJSON().refusedContent).toEqual({});
  });

  it("local-name verdicts: a change is reported once; the last one cleared leaves no field", () => {
    const s = new FolderStatus({});
    expect(s.noteLocalNames(new Map([["CON.ts", "a reserved name"]]))).toBe(true);
    expect(s.noteLocalNames(new Map([["CON.ts", "a reserved name"]]))).toBe(false);
    expect(s.refusedLocalOf("CON.ts")).toBe("a reserved name");
    expect(s.noteLocalNames(new Map([["CON.ts", undefined]]))).toBe(true);
    expect(s.toJSON().refusedLocal).toBeUndefined();
    expect(s.noteLocalNames(new Map([["other.ts", undefined]]))).toBe(false);
  });

  it("hands its fields out read-only: the compiler refuses a write from outside (npm run typecheck)", () => {
    const s = new FolderStatus({ halted: { reason: "r", at: 1 } });
    const writeFromOutside = (): void => {
      // @ts-expect-error -- a change goes through a method (halt, clearHalt)
      s.data.halted = undefined;
    };
    expect(writeFromOutside).toBeTypeOf("function");
    expect(s.halted).toEqual({ reason: "r", at: 1 });
  });
});
