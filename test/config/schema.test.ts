import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MpsyncError } from "../../src/core/errors.js";
import { ConfigInvalidError } from "../../src/config/config-error.js";
import { renderValue, suggestKey } from "../../src/config/format-issues.js";
import { API_KEY_IN_SYNCRC_MESSAGE, DEFAULT_BASE_URL, dirsOverlap, syncrcSchema } from "../../src/config/schema.js";
import { parseSyncrcText, validateSyncrc } from "../../src/config/validate-syncrc.js";

const ok = { designs: [{ dir: "web", design: "abcdefghijklmnopqrstuv" }] };

/** The problem lines of validating `raw`, or [] when valid. */
function problemsOf(raw: unknown): string[] {
  try {
    validateSyncrc(raw, ".syncrc");
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigInvalidError);
    return [...(error as ConfigInvalidError).problems];
  }
}

/** The README's Configuration table as a config: `| \`git.commitOnPull\` | \`false\` | ...` -> { git: { commitOnPull: false } }. */
function readmeDefaults(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, key, value] of readFileSync(join(import.meta.dirname, "../../README.md"), "utf8").matchAll(/^\| `([\w.]+)` \| `([^`]+)` \|/gm)) {
    const [head, leaf] = key!.split(".");
    if (leaf === undefined) out[head!] = value === DEFAULT_BASE_URL ? value : JSON.parse(value!);
    else out[head!] = { ...(out[head!] as object), [leaf]: JSON.parse(value!) };
  }
  return out;
}

/** `.syncrc.example`'s `// Default: X` comments, by the key on the line below. */
function exampleDefaults(): [string, unknown][] {
  const lines = readFileSync(join(import.meta.dirname, "../../.syncrc.example"), "utf8").split("\n");
  return lines.flatMap((line, i) => {
    const m = /^\s*\/\/ Default: (.+)$/.exec(line);
    const key = /^\s*"(\w+)":/.exec(lines[i + 1] ?? "")?.[1];
    return m === null || key === undefined ? [] : [[key, JSON.parse(m[1]!)] as [string, unknown]];
  });
}

describe("validateSyncrc defaults", () => {
  it("applies every default of the README's Configuration table, and no other", () => {
    const table = readmeDefaults();
    expect(Object.keys(table).sort()).toEqual(
      Object.keys(syncrcSchema.shape)
        .filter((k) => k !== "$schema" && k !== "designs")
        .sort(),
    );
    expect(validateSyncrc(ok, ".syncrc")).toEqual({ ...table, designs: ok.designs });
  });

  it("says each default in .syncrc.example as the schema applies it", () => {
    const applied = validateSyncrc(ok, ".syncrc") as unknown as Record<string, unknown>;
    const said = exampleDefaults();
    expect(said.length).toBeGreaterThan(10);
    for (const [key, value] of said) expect(value, key).toEqual(applied[key] ?? (applied["git"] as Record<string, unknown>)[key]);
  });

  it("fills a partial git section", () => {
    expect(validateSyncrc({ ...ok, git: { commitOnPull: true } }, ".syncrc").git).toEqual({
      pauseDuringGitOps: true,
      commitOnPull: true,
    });
  });

  it("accepts $schema, URLs as designs and relative dirs with ..", () => {
    const config = validateSyncrc(
      { $schema: "./syncrc.schema.json", designs: [{ dir: "../site", design: "https://www.magicpatterns.com/c/abc/screens" }] },
      ".syncrc",
    );
    expect(config.designs[0]?.dir).toBe("../site");
  });
});

describe("validateSyncrc messages", () => {
  const cases: { name: string; raw: unknown; expected: string[] }[] = [
    { name: "wrong type in a mapping", raw: { designs: [{ dir: 42, design: "x" }] }, expected: [".syncrc: designs[0].dir: expected a string, got 42"] },
    {
      name: "enum",
      raw: { ...ok, onConflict: "theirs" },
      expected: ['.syncrc: onConflict: expected one of "merge", "keep-local", "keep-remote", got "theirs"'],
    },
    { name: "misspelt key", raw: { ...ok, pollInterval: 5 }, expected: ['.syncrc: unknown key "pollInterval" (did you mean "pollIntervalSec"?)'] },
    {
      name: "misspelt nested key",
      raw: { ...ok, git: { commitOnPul: true } },
      expected: ['.syncrc: git: unknown key "commitOnPul" (did you mean "commitOnPull"?)'],
    },
    {
      name: "unknown key, no suggestion",
      raw: { ...ok, git: { zzz: 1 } },
      expected: ['.syncrc: git: unknown key "zzz" (allowed: "pauseDuringGitOps", "commitOnPull")'],
    },
    { name: "missing designs", raw: {}, expected: [".syncrc: designs: missing, expected a non-empty array of { dir, design } objects"] },
    { name: "empty designs", raw: { designs: [] }, expected: [".syncrc: designs: expected a non-empty array of { dir, design } objects, got []"] },
    { name: "missing design", raw: { designs: [{ dir: "a" }] }, expected: [".syncrc: designs[0].design: missing, expected a string"] },
    { name: "empty dir", raw: { designs: [{ dir: "", design: "x" }] }, expected: ['.syncrc: designs[0].dir: expected a non-empty string, got ""'] },
    {
      name: "absolute dir",
      raw: { designs: [{ dir: "/srv/web", design: "x" }] },
      expected: ['.syncrc: designs[0].dir: expected a folder path relative to the config file, got "/srv/web"'],
    },
    {
      name: "windows absolute dir",
      raw: { designs: [{ dir: "C:\\web", design: "x" }] },
      expected: ['.syncrc: designs[0].dir: expected a folder path relative to the config file, got "C:\\\\web"'],
    },
    {
      name: "bad design",
      raw: { designs: [{ dir: "a", design: "not an id" }] },
      expected: ['.syncrc: designs[0].design: expected an editorId (letters, digits, - and _) or an http(s) design URL, got "not an id"'],
    },
    {
      name: "non-http design URL",
      raw: { designs: [{ dir: "a", design: "ftp://x/c/abc" }] },
      expected: ['.syncrc: designs[0].design: expected an editorId (letters, digits, - and _) or an http(s) design URL, got "ftp://x/c/abc"'],
    },
    { name: "top level not an object", raw: [1, 2], expected: [".syncrc: expected an object, got [1,2]"] },
    { name: "baseUrl scheme", raw: { ...ok, baseUrl: "ftp://x" }, expected: ['.syncrc: baseUrl: expected an http:// or https:// URL, got "ftp://x"'] },
    { name: "baseUrl unparsable", raw: { ...ok, baseUrl: "http://" }, expected: ['.syncrc: baseUrl: expected an http:// or https:// URL, got "http://"'] },
    {
      name: "pollIntervalSec range: the real service's floor",
      raw: { ...ok, pollIntervalSec: 0 },
      expected: [
        ".syncrc: pollIntervalSec: expected a number from 60 to 86400 for https://api.magicpatterns.com/api (only a loopback address accepts 0.05 and up), got 0",
      ],
    },
    {
      name: "pollIntervalSec type",
      raw: { ...ok, pollIntervalSec: "60" },
      expected: [
        '.syncrc: pollIntervalSec: expected a number from 60 to 86400 for https://api.magicpatterns.com/api (only a loopback address accepts 0.05 and up), got "60"',
      ],
    },
    {
      name: "pollIntervalSec range: a loopback floor",
      raw: { ...ok, baseUrl: "http://127.0.0.1:4010/api", pollIntervalSec: 0.01 },
      expected: [".syncrc: pollIntervalSec: expected a number from 0.05 to 86400 for http://127.0.0.1:4010/api, got 0.01"],
    },
    {
      name: "remoteCheckSec range: the real service's floor",
      raw: { ...ok, remoteCheckSec: 0 },
      expected: [
        ".syncrc: remoteCheckSec: expected a number from 10 to 86400 for https://api.magicpatterns.com/api (only a loopback address accepts 0.05 and up), got 0",
      ],
    },
    { name: "debounceMs integer", raw: { ...ok, debounceMs: 1.5 }, expected: [".syncrc: debounceMs: expected an integer from 0 to 60000, got 1.5"] },
    { name: "debounceMs range", raw: { ...ok, debounceMs: 60001 }, expected: [".syncrc: debounceMs: expected an integer from 0 to 60000, got 60001"] },
    { name: "concurrency range", raw: { ...ok, concurrency: 0 }, expected: [".syncrc: concurrency: expected an integer from 1 to 32, got 0"] },
    { name: "ignore type", raw: { ...ok, ignore: "*.log" }, expected: ['.syncrc: ignore: expected an array of strings, got "*.log"'] },
    { name: "ignore element", raw: { ...ok, ignore: ["a", 3] }, expected: [".syncrc: ignore[1]: expected a string, got 3"] },
    { name: "git type", raw: { ...ok, git: true }, expected: [".syncrc: git: expected an object { pauseDuringGitOps, commitOnPull }, got true"] },
    { name: "boolean", raw: { ...ok, publishOnPush: "yes" }, expected: ['.syncrc: publishOnPush: expected true or false, got "yes"'] },
    {
      name: "logLevel",
      raw: { ...ok, logLevel: "loud" },
      expected: ['.syncrc: logLevel: expected one of "fatal", "error", "warn", "info", "debug", "trace", "silent", got "loud"'],
    },
    {
      name: "keepBackupsDays integer",
      raw: { ...ok, keepBackupsDays: 7.5 },
      expected: [".syncrc: keepBackupsDays: expected an integer from 0 to 3650, got 7.5"],
    },
    { name: "keepBackupsDays range", raw: { ...ok, keepBackupsDays: -1 }, expected: [".syncrc: keepBackupsDays: expected an integer from 0 to 3650, got -1"] },
    {
      name: "keepBackupsDays type",
      raw: { ...ok, keepBackupsDays: "30" },
      expected: ['.syncrc: keepBackupsDays: expected an integer from 0 to 3650, got "30"'],
    },
    {
      name: "misspelt keepBackupsDays",
      raw: { ...ok, keepBackupDays: 7 },
      expected: ['.syncrc: unknown key "keepBackupDays" (did you mean "keepBackupsDays"?)'],
    },
    { name: "$schema type", raw: { ...ok, $schema: 1 }, expected: [".syncrc: $schema: expected a string, got 1"] },
    {
      name: "long value truncated",
      raw: { ...ok, baseUrl: `ftp://${"x".repeat(100)}` },
      expected: [`.syncrc: baseUrl: expected an http:// or https:// URL, got "ftp://${"x".repeat(32)}…`],
    },
  ];

  it.each(cases)("$name", ({ raw, expected }) => {
    expect(problemsOf(raw)).toEqual(expected);
  });

  it("lists every problem, one line each", () => {
    const problems = problemsOf({ designs: [{ dir: 1, design: 2 }], concurrency: 100, extra: true });
    expect(problems).toEqual([
      ".syncrc: designs[0].dir: expected a string, got 1",
      ".syncrc: designs[0].design: expected a string, got 2",
      ".syncrc: concurrency: expected an integer from 1 to 32, got 100",
      '.syncrc: unknown key "extra" (allowed: "$schema", "baseUrl", "designs", "pollIntervalSec", "remoteCheckSec", "debounceMs", "ignore", "onConflict", "git", "concurrency", "publishOnPush", "keepBackupsDays", "logLevel")',
    ]);
  });

  it("throws MpsyncError with code CONFIG_INVALID and the lines as message", () => {
    const error = (() => {
      try {
        validateSyncrc({}, "x/.syncrc");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MpsyncError);
    expect((error as MpsyncError).code).toBe("CONFIG_INVALID");
    expect((error as MpsyncError).message).toBe("x/.syncrc: designs: missing, expected a non-empty array of { dir, design } objects");
  });
});

describe("apiKey in .syncrc", () => {
  it.each([
    { where: "top level", raw: { ...ok, apiKey: "sk_live_secret" }, prefix: ".syncrc: " },
    { where: "a mapping", raw: { designs: [{ dir: "a", design: "b", apiKey: "sk_live_secret" }] }, prefix: ".syncrc: designs[0]: " },
    { where: "git", raw: { ...ok, git: { apiKey: "sk_live_secret" } }, prefix: ".syncrc: git: " },
    { where: "spelt api_key", raw: { ...ok, api_key: "sk_live_secret" }, prefix: ".syncrc: " },
  ])("is refused with a pointer to MP_API_KEY at $where, never echoing the key", ({ raw, prefix }) => {
    const problems = problemsOf(raw);
    expect(problems).toEqual([`${prefix}${API_KEY_IN_SYNCRC_MESSAGE}`]);
    expect(problems.join("\n")).not.toContain("sk_live_secret");
  });

  it("is found where zod sees only a wrong type, and redacted from the echoed value", () => {
    const problems = problemsOf({ ...ok, ignore: [{ apiKey: "sk_live_secret" }] });
    expect(problems).toEqual(['.syncrc: ignore[0]: expected a string, got {"apiKey":"[redacted]"}', `.syncrc: ignore[0]: ${API_KEY_IN_SYNCRC_MESSAGE}`]);
  });
});

describe("duplicate and nested dirs", () => {
  const mapping = (dir: string, design = "abc"): { dir: string; design: string } => ({ dir, design });

  it.each([
    { dirs: ["web", "web"], line: '.syncrc: designs[1].dir: "web" is already mapped by designs[0]: each folder holds one design' },
    { dirs: ["./web/", "web"], line: '.syncrc: designs[1].dir: "web" is already mapped by designs[0]: each folder holds one design' },
    { dirs: ["web", "api", "web/admin"], line: '.syncrc: designs[2].dir: "web/admin" overlaps "web" of designs[0]: mapped folders must not nest' },
    { dirs: [".", "web"], line: '.syncrc: designs[1].dir: "web" overlaps "." of designs[0]: mapped folders must not nest' },
  ])("$dirs", ({ dirs, line }) => {
    expect(problemsOf({ designs: dirs.map((d) => mapping(d)) })).toEqual([line]);
  });

  it("allows siblings and prefixes that are not parents", () => {
    expect(problemsOf({ designs: [mapping("web"), mapping("website"), mapping("../web")] })).toEqual([]);
    expect(dirsOverlap("a/b", "a/bc")).toBe(false);
  });

  it("still reports duplicates when another mapping is invalid", () => {
    expect(problemsOf({ designs: [mapping("a", "bad id"), mapping("b"), mapping("b")] })).toHaveLength(2);
  });
});

describe("helpers", () => {
  it("suggests close keys only", () => {
    expect(suggestKey("baseURL", ["baseUrl", "designs"])).toBe("baseUrl");
    expect(suggestKey("design", ["baseUrl", "designs"])).toBe("designs");
    expect(suggestKey("concurency", ["concurrency"])).toBe("concurrency");
    expect(suggestKey("colour", ["concurrency", "designs"])).toBeUndefined();
  });

  it("renders values on one line, at most 40 characters", () => {
    expect(renderValue("a\nb")).toBe('"a\\nb"');
    expect(renderValue("x".repeat(100))).toHaveLength(40);
    expect(renderValue({ a: [1] })).toBe('{"a":[1]}');
    expect(renderValue(undefined)).toBe("undefined");
  });
});

describe("parseSyncrcText", () => {
  it.each([
    { text: '{\n  "a": 1,\n    "b": }', line: '.syncrc: invalid JSON at line 3, column 10: unexpected "}", expected a value' },
    { text: '{"a": 1', line: '.syncrc: invalid JSON at line 1, column 8: unexpected end of file, expected "," or "}"' },
    { text: "", line: ".syncrc: invalid JSON at line 1, column 1: unexpected end of file, expected a value" },
    { text: "{\n  // note\n  'a': 1\n}", line: '.syncrc: invalid JSON at line 3, column 3: unexpected "\'", expected a key in double quotes' },
    { text: "[1 2]", line: '.syncrc: invalid JSON at line 1, column 4: unexpected "2", expected "," or "]"' },
  ])("$line", ({ text, line }) => {
    expect(() => parseSyncrcText(text, ".syncrc")).toThrow(new ConfigInvalidError([line]));
  });

  it("accepts comments, trailing commas and a BOM", () => {
    const text = '\uFEFF{\n  // line\n  "a": [1, 2,], /* block */\n  "b": "//not a comment",\n}';
    expect(parseSyncrcText(text, ".syncrc")).toEqual({ a: [1, 2], b: "//not a comment" });
  });
});

describe("fuzz", () => {
  const keys = Object.keys(syncrcSchema.shape);
  // Values shaped like a .syncrc half the time, so the fuzz reaches deep paths, not only the root.
  const nearSyncrc = fc.dictionary(
    fc.oneof(fc.constantFrom(...keys, "apiKey", "pollInterval"), fc.string()),
    fc.oneof(
      fc.jsonValue(),
      fc.array(fc.record({ dir: fc.oneof(fc.string(), fc.jsonValue()), design: fc.oneof(fc.string(), fc.jsonValue()) }, { requiredKeys: [] })),
    ),
  );

  it("random JSON values either validate or throw CONFIG_INVALID with one line per problem", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), nearSyncrc), (raw) => {
        try {
          validateSyncrc(raw, ".syncrc");
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigInvalidError);
          const { code, message, problems } = error as ConfigInvalidError;
          expect(code).toBe("CONFIG_INVALID");
          expect(problems.length).toBeGreaterThan(0);
          expect(message.split("\n")).toEqual(problems);
          for (const line of problems) {
            expect(line.startsWith(".syncrc: ")).toBe(true);
            expect(line).not.toMatch(/[\r\n\u2028\u2029]/);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("random text either parses or throws CONFIG_INVALID naming a position", () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string()), fc.nat(), fc.string({ maxLength: 3 }), (json, at, noise) => {
        const text = json.slice(0, at % (json.length + 1)) + noise + json.slice(at % (json.length + 1));
        try {
          parseSyncrcText(text, ".syncrc");
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigInvalidError);
          expect((error as ConfigInvalidError).problems).toHaveLength(1);
          expect((error as Error).message).toMatch(/^\.syncrc: invalid JSON at line \d+, column \d+: /);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("keepBackupsDays", () => {
  it("takes 0 (forever) and whole days up to ten years", () => {
    expect(validateSyncrc({ ...ok, keepBackupsDays: 0 }, ".syncrc").keepBackupsDays).toBe(0);
    expect(validateSyncrc({ ...ok, keepBackupsDays: 3650 }, ".syncrc").keepBackupsDays).toBe(3650);
    expect(problemsOf({ ...ok, keepBackupsDays: 3651 })).toEqual([".syncrc: keepBackupsDays: expected an integer from 0 to 3650, got 3651"]);
  });
});
