/** What `mpsync status` prints for one design: long lists cut, a stale error shown with its age. */
import { describe, expect, it } from "vitest";
import { Output } from "../../src/cli/output.js";
import { emptyStatusReport, type DesignStatusReport } from "../../src/app/collect-status.js";
import { renderStatus, statusExitCode, STATUS_LIST_LIMIT } from "../../src/cli/commands/status-report.js";

function printed(report: Partial<DesignStatusReport>): string {
  let text = "";
  const sink = { write: (s: string) => ((text += s), true) } as unknown as NodeJS.WritableStream;
  const out = new Output({ json: false, quiet: false, verbose: false, color: false, stdout: sink, stderr: sink });
  const base: DesignStatusReport = {
    ...emptyStatusReport("web"),
    editorId: "abc",
    state: "idle",
    generating: false,
    statusAgeSec: 5,
    activeArtifactId: "a1",
    activeVersion: "v3",
  };
  renderStatus(out, [{ ...base, ...report }]);
  return text;
}

describe("renderStatus", () => {
  it("names the first few changed files, then how many more", () => {
    const many = Array.from({ length: 12 }, (_, i) => `f${i}.ts`);
    const text = printed({ localChanges: many });
    expect(text).toContain(`local changes (12): f0.ts, f1.ts, f2.ts, f3.ts, f4.ts, and ${12 - STATUS_LIST_LIMIT} more`);
    expect(text).not.toContain("f5.ts");
  });

  it("shows how old the last error is, so a stale one looks stale", () => {
    const text = printed({ lastError: { code: "NETWORK", message: "could not read the design's status: network error", at: 0, ageSec: 1260 } });
    expect(text).toContain("last error, 21m00s ago: could not read the design's status: network error");
    expect(text).not.toContain("in sync");
  });

  it("a file deleted locally is not in sync, and says what to do", () => {
    const text = printed({ deletedLocally: ["index.css"] });
    expect(text).toContain("deleted locally (1): index.css");
    expect(text).toContain("mpsync restore PATH");
    expect(text).not.toContain("in sync");
  });

  it("explains state unknown, and says when the service could not be reached", () => {
    expect(printed({ state: "unknown", generating: undefined, statusAgeSec: undefined })).toContain("state unknown: generating or idle is not known yet");
    const down = printed({ state: "unknown", serviceError: "the service could not be reached: connection refused", localChanges: ["App.tsx"] });
    expect(down).toContain("the service could not be reached: connection refused; below: the local side only");
    expect(down).toContain("local changes (1): App.tsx");
    expect(down).not.toContain("in sync");
  });

  it("dates a state it shows, never 'state unknown' (the age was of a status the line does not show)", () => {
    const down = printed({ state: "unknown", statusAgeSec: 50, serviceError: "the service could not be reached: connection refused" });
    expect(down.split("\n")[0]).toBe("web  abc  state unknown  v3");
    expect(printed({ state: "idle", statusAgeSec: 50 }).split("\n")[0]).toBe("web  abc  idle, as of 50s ago  v3");
  });

  it("names what is left out by design on one line, and still says in sync", () => {
    const text = printed({ notSynced: [{ path: "node_modules", reason: "a symbolic link", needsAttention: false }] });
    expect(text).toContain("left out by design (links, special and binary files never sync) (1): node_modules");
    expect(text).not.toContain("not synced");
    expect(text).toContain("in sync");
  });

  it("shows a paused folder", () => {
    const text = printed({ paused: { at: 0, by: "mpsync pause" } });
    expect(text).toMatch(/idle.*paused/);
    expect(text).toContain("paused: nothing is synced until mpsync resume");
    expect(text).not.toContain("in sync");
  });
});

describe("status exit code", () => {
  const base = (r: Partial<DesignStatusReport>): DesignStatusReport => ({ ...emptyStatusReport("web"), state: "idle", ...r });
  it.each([
    ["in sync", {}, 0],
    ["changes waiting to go out", { localChanges: ["a.ts"], remoteChanges: ["b.ts"] }, 0],
    ["unresolved conflict markers", { unresolvedConflicts: ["a.ts"], deletedLocally: ["b.ts"] }, 5],
    ["a file deleted locally", { deletedLocally: ["index.css"] }, 1],
    ["a symbolic link left out by design", { notSynced: [{ path: "node_modules", reason: "a symbolic link", needsAttention: false }] }, 0],
    ["a name the service would refuse", { notSynced: [{ path: "app.tsx", reason: "case twin", needsAttention: true }] }, 1],
    ["halted", { halted: "the folder vanished", state: "halted" as const }, 1],
    ["the service unreachable", { serviceError: "could not be reached" }, 1],
    ["a refused key", { errorCode: "UNAUTHORIZED", error: "refused", unresolvedConflicts: ["a.ts"] }, 3],
  ])("%s: %i", (_name, report, code) => {
    expect(statusExitCode([base(report)])).toBe(code);
  });
});
