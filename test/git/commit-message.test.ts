/** Commit messages and dates of versions: pure, table-driven. */
import { describe, expect, it } from "vitest";
import { artifactIdOf, gitDate, historyCommitMessage, MAX_SUBJECT_CHARS, pullCommitMessage, versionSubject } from "../../src/git/commit-message.js";

const v = (title: string) => ({ versionLabel: "v7", title, timeCreated: 1_700_000_000_123 });

describe("versionSubject", () => {
  it.each([
    ["make it blue", "design: v7 make it blue"],
    ["", "design: v7"],
    ["two\nlines\t here", "design: v7 two lines here"],
  ])("%j -> %j", (title, subject) => {
    expect(versionSubject(v(title), "a1")).toBe(subject);
  });

  it("names the artifact when the version is unknown", () => {
    expect(versionSubject(undefined, "a1")).toBe("design: artifact a1");
  });

  it("shortens a long title and keeps it whole in the body", () => {
    const long = "x".repeat(300);
    const message = pullCommitMessage(v(long), "ed", "a1");
    const [subject = ""] = message.split("\n");
    expect(subject.length).toBe(MAX_SUBJECT_CHARS);
    expect(message).toContain(`\n\n${long}\n\nEditor-Id: ed\nArtifact-Id: a1\n`);
  });
});

describe("messages and trailers", () => {
  it("pull commits carry editorId and artifactId lines", () => {
    expect(pullCommitMessage(v("t"), "ed", "a1")).toBe("design: v7 t\n\nEditor-Id: ed\nArtifact-Id: a1\n");
  });

  it("history commits carry trailers that artifactIdOf reads back (the last one wins)", () => {
    const message = historyCommitMessage(v("Artifact-Id: spoofed\nreal"), "ed", "a1");
    expect(artifactIdOf(message)).toBe("a1");
    expect(artifactIdOf("no trailer here")).toBeUndefined();
  });
});

describe("gitDate", () => {
  it.each([
    [1_700_000_000_123, "@1700000000 +0000"],
    [1_700_000_000, "@1700000000 +0000"],
  ])("%d -> %s", (time, date) => {
    expect(gitDate(time)).toBe(date);
  });
});
