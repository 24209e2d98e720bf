/** What `mpsync status` prints for one design: long lists cut, a stale error shown with its age. */
import { describe, expect, it } from "vitest";
import { Output } from "../../src/cli/output.js";
import { emptyStatusReport, renderStatus, STATUS_LIST_LIMIT, type DesignStatusReport } from "../../src/cli/commands/status-report.js";

function printed(report: Partial<DesignStatusReport>): string {
  let text = "";
  const sink = { write: (s: string) => ((text += s), true) } as unknown as NodeJS.WritableStream;
  const out = new Output({ json: false, quiet: false, verbose: false, color: false, stdout: sink, stderr: sink });
  const base: DesignStatusReport = { ...emptyStatusReport("web"), editorId: "abc", state: "idle", generating: false, statusAgeSec: 5, activeArtifactId: "a1", activeVersion: "v3" };
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
    expect(text).toContain("last error (21m00s ago): could not read the design's status: network error");
    expect(text).not.toContain("in sync");
  });
});
