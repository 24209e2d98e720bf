/** A failing git command's error: a stable code and git's own first line. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorCode } from "../../src/core/errors.js";
import { runGit } from "../../src/git/git-runner.js";

describe("a git command that fails", () => {
  it("is GIT_FAILED (a failure of git, not a bug: INTERNAL was wrong) and says git's first line", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mpsync-gitfail-"));
    try {
      const err: unknown = await runGit(["rev-parse", "HEAD"], { cwd: dir }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(errorCode(err)).toBe("GIT_FAILED");
      expect((err as Error).message).toMatch(/^git rev-parse failed: not a git repository/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
