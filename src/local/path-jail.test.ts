import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRemoteName, findCaseTwins, foldName, fullRefusalReason, localNameRefusal, toRemoteName } from "./path-jail.js";

describe("checkRemoteName", () => {
  it.each([
    "App.tsx",
    "components/Button.tsx",
    "a/b/c/d.css",
    ".env.example",
    "..foo",
    "foo..",
    ".gitignore",
    "git/x",
    ".github/workflows/ci.yml",
    "%41.txt",
    "100%.txt",
    "caf\u00e9.tsx",
    "emoji-\u{1f600}.md",
    "a".repeat(255),
  ])("accepts %j", (name) => {
    expect(checkRemoteName(name)).toEqual({ ok: true, path: name });
  });

  it.each([
    ["", "empty"],
    ["/etc/passwd", "absolute"],
    ["//server/share/x", "absolute"],
    ["C:\\Windows\\x", "backslash"],
    ["C:/Windows/x", "absolute"],
    ["c:x", "absolute"],
    ["../x", "'..'"],
    ["a/../../x", "'..'"],
    ["a/..", "'..'"],
    ["..", "'..'"],
    ["%2e%2e/x", "percent-encoded"],
    ["a/%2E%2E/x", "percent-encoded"],
    ["a/.%2e/x", "percent-encoded"],
    ["a/%2e./x", "percent-encoded"],
    ["a/%252e%252e/x", "percent-encoded"],
    ["..%2fx", "percent-encoded"],
    ["%2e%2e%5cx", "percent-encoded"],
    ["%2e/x", "percent-encoded"],
    ["a\\b", "backslash"],
    ["a\u0000b", "control"],
    ["a\nb", "control"],
    ["a\u001fb", "control"],
    ["a\u007fb", "control"],
    ["a\u0085b", "control"],
    ["a\u009fb", "control"],
    ["a//b", "empty"],
    ["./a", "empty or '.'"],
    ["a/./b", "empty or '.'"],
    ["a/", "ends with a slash"],
    [".git/config", "reserved"],
    ["src/.git/hooks/pre-commit", "reserved"],
    [".GIT/config", "reserved"],
    [".Git", "reserved"],
    [".mpsync/state.json", "reserved"],
    ["x/.MPSYNC/state.json", "reserved"],
    [".git./config", "reserved"],
    ["a/.../b", "only dots and spaces"],
    [".. /x", "only dots and spaces"],
    ["a/. ", "only dots and spaces"],
    ["%2e%2e%20/x", "percent-encoded"],
    [".git /config", "reserved"],
    [".g\u200cit/config", "reserved"],
    ["GIT~1/config", "reserved"],
    ["%2egit/config", "reserved"],
    ["cafe\u0301.tsx", "normalization"],
    ["a\ud800b", "surrogate"],
    ["a".repeat(256), "segment is longer"],
    [`${"a/".repeat(512)}b`, "longer than 1024"],
    ["\u00e9".repeat(128), "segment is longer"],
  ])("refuses %j (%s)", (name, reason) => {
    const verdict = checkRemoteName(name);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(reason);
  });
});

const tokenArb = fc.oneof(
  fc.constantFrom("/", "..", ".", "\\", "%2e", "%2E", "%2f", "%5c", "%25", ".git", ".GIT", ".mpsync", "C:", "a", "b", "\u0000", "\u0085", "e\u0301", "~1"),
  fc.string({ maxLength: 4 }),
  fc.string({ unit: "binary", maxLength: 4 }),
);
const nameArb = fc.oneof(
  fc.array(tokenArb, { maxLength: 8 }).map((t) => t.join("")),
  fc.string({ unit: "binary" }),
  fc.string(),
);

describe("checkRemoteName properties", () => {
  it("no accepted name ever leaves the root or touches a reserved folder", () => {
    fc.assert(
      fc.property(nameArb, (name) => {
        const verdict = checkRemoteName(name);
        if (!verdict.ok) return;
        const normal = path.posix.normalize(verdict.path);
        expect(normal).toBe(verdict.path);
        expect(normal === ".." || normal.startsWith("../")).toBe(false);
        expect(path.posix.isAbsolute(normal)).toBe(false);
        expect(path.win32.isAbsolute(normal)).toBe(false);
        // Windows also drops trailing dots and spaces from each segment.
        const win = normal.split("/").map((seg) => seg.replace(/[. ]+$/, ""));
        expect(win).not.toContain("");
        expect(path.win32.join("C:\\root", ...win).startsWith("C:\\root\\")).toBe(true);
        expect(path.posix.join("/root", normal).startsWith("/root/")).toBe(true);
        for (const segment of normal.split("/")) {
          expect([".git", ".mpsync"]).not.toContain(segment.toLowerCase());
          expect(decodeURIComponentSafe(segment)).not.toMatch(/^\.\.?$/);
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe("the plain-name shortcut", () => {
  // Names of ASCII letters, digits and `-_./` only: the shortcut's own alphabet, where it could err.
  const plainish = fc
    .array(fc.constantFrom("a", "B", "0", "_", "-", ".", "/", "..", ".git", ".mpsync", "git~1", ".syncignore", "a".repeat(255)), { maxLength: 8 })
    .map((t) => t.join(""));

  it("gives the full check's verdict on every name", () => {
    fc.assert(
      fc.property(fc.oneof(plainish, nameArb), (name) => {
        const full = fullRefusalReason(name);
        expect(checkRemoteName(name)).toEqual(full === undefined ? { ok: true, path: name } : { ok: false, reason: full });
      }),
      { numRuns: 5000 },
    );
    expect(checkRemoteName(`${"a/".repeat(512)}b`)).toEqual({ ok: false, reason: "longer than 1024 bytes" });
  });

  it("folds an ASCII name as NFC and lower case would", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), plainish), (name) => {
        expect(foldName(name)).toBe(name.normalize("NFC").toLowerCase());
      }),
    );
  });
});

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

describe("findCaseTwins", () => {
  it("groups names equal after NFC and lower-casing", () => {
    expect(findCaseTwins(["App.tsx", "app.tsx", "index.css", "APP.TSX"])).toEqual([["APP.TSX", "App.tsx", "app.tsx"]]);
    expect(findCaseTwins(["caf\u00e9.ts", "cafe\u0301.ts", "CAF\u00c9.ts"])).toEqual([["CAF\u00c9.ts", "cafe\u0301.ts", "caf\u00e9.ts"]]);
  });

  it("groups names whose folders collide", () => {
    expect(findCaseTwins(["Components/A.tsx", "components/B.tsx", "components/C.tsx", "x.ts"])).toEqual([
      ["Components/A.tsx", "components/B.tsx", "components/C.tsx"],
    ]);
  });

  it("finds nothing among distinct names or exact duplicates", () => {
    expect(findCaseTwins(["a/b", "a/c", "b", "a/b"])).toEqual([]);
  });

  it("every twin folds to a key shared with another name of its group", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "A", "b", "a/x", "A/x", "a/Y", "\u00c9", "\u00e9", "e\u0301"), { maxLength: 6 }), (names) => {
        const grouped = findCaseTwins(names).flat();
        expect(new Set(grouped).size).toBe(grouped.length);
        const folded = (n: string) => n.normalize("NFC").toLowerCase();
        const unique = [...new Set(names)];
        for (const n of unique) {
          const twin = unique.some((m) => m !== n && folded(m) === folded(n));
          if (twin) expect(grouped).toContain(n);
        }
      }),
    );
  });
});

describe("toRemoteName", () => {
  it("turns OS separators into slashes", () => {
    expect(toRemoteName("components\\ui\\Button.tsx", "\\")).toBe("components/ui/Button.tsx");
    expect(toRemoteName("components/ui/Button.tsx", "/")).toBe("components/ui/Button.tsx");
    expect(toRemoteName(path.join("a", "b.ts"))).toBe("a/b.ts");
  });

  it("drops a leading ./ and normalizes to NFC", () => {
    expect(toRemoteName("./cafe\u0301.ts", "/")).toBe("caf\u00e9.ts");
  });

  it("keeps a backslash in a POSIX file name, so the jail refuses it later", () => {
    expect(toRemoteName("a\\b", "/")).toBe("a\\b");
    expect(checkRemoteName(toRemoteName("a\\b", "/")).ok).toBe(false);
  });
});

describe("localNameRefusal", () => {
  const remote = ["App.tsx", "lib", "components/Button.tsx", "index.css"];
  it.each([
    ["a name the service already has", "App.tsx", undefined],
    ["a new, ordinary name", "pages/Home.tsx", undefined],
    ["a case-only rename", "app.tsx", "differs only by case or Unicode form"],
    ["a file where the service has a folder", "components", "is a folder on the service"],
    ["a file under a name the service holds as a file", "lib/index.ts", "which is a file on the service"],
    ["a folder that differs by case", "Components/Card.tsx", "its folder differs only by case"],
    ["a name not in NFC", "cafe\u0301.ts", "not in Unicode normalization form C"],
    ["a name the jail refuses (mpsync's own folder)", ".mpsync/x", "any"],
  ] as const)("%s", (_label, name, want) => {
    const got = localNameRefusal(name, remote);
    if (want === undefined) expect(got).toBeUndefined();
    else if (want === "any") expect(got?.fix).toBe("rename it locally");
    else expect(got?.reason).toContain(want);
  });
});
