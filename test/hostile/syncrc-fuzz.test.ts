/**
 * `.syncrc` fuzzed: random JSON values, near-valid configs with random values in every key,
 * random bytes and randomly mutated valid text. loadConfig must either succeed or throw
 * ConfigInvalidError (CONFIG_INVALID) whose message is one line per problem, each naming the
 * file; never another error type, never a stack, never a multi-line problem.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { MpsyncError } from "../../src/core/errors.js";
import { ConfigInvalidError } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load-config.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mpsync-fuzz-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A problem line longer than this is not "one line a user can read". */
const MAX_PROBLEM_CHARS = 600;
const KEYS = [
  "baseUrl",
  "designs",
  "pollIntervalSec",
  "remoteCheckSec",
  "debounceMs",
  "ignore",
  "onConflict",
  "git",
  "concurrency",
  "publishOnPush",
  "logLevel",
  "$schema",
  "apiKey",
];

const VALID = {
  $schema: "./syncrc.schema.json",
  baseUrl: "http://127.0.0.1:4010/api",
  pollIntervalSec: 1,
  designs: [{ dir: "web", design: "abcdefghij0123456789ab" }],
  ignore: ["dist/"],
  git: { pauseDuringGitOps: true, commitOnPull: false },
};

/** Loads `bytes` as .syncrc; resolves "ok" or the thrown value. */
async function load(bytes: string | Uint8Array): Promise<unknown> {
  await writeFile(join(dir, ".syncrc"), bytes);
  try {
    await loadConfig({ cwd: dir, configPath: ".syncrc", env: {} });
    return "ok";
  } catch (err) {
    return err;
  }
}

/** The contract every failure honours. Returns a description of the first breach, or undefined. */
function breach(outcome: unknown): string | undefined {
  if (outcome === "ok") return undefined;
  if (!(outcome instanceof ConfigInvalidError)) {
    return `threw ${outcome instanceof Error ? `${outcome.name}: ${outcome.message}` : String(outcome)}`;
  }
  const err: MpsyncError = outcome;
  if (err.code !== "CONFIG_INVALID") return `code ${err.code}`;
  if (outcome.problems.length === 0) return "no problems listed";
  if (err.message !== outcome.problems.join("\n")) return "message is not the problems, one per line";
  for (const p of outcome.problems) {
    if (/[\r\n\u2028\u2029]/.test(p)) return `a problem spans lines: ${JSON.stringify(p)}`;
    if (!p.startsWith(".syncrc: ")) return `a problem does not name the file: ${JSON.stringify(p)}`;
    if (/\bat .+:\d+:\d+\)?$/m.test(p) || p.includes("    at ")) return `a stack frame: ${JSON.stringify(p)}`;
    if (p.length > MAX_PROBLEM_CHARS) return `a problem of ${p.length} chars`;
  }
  return undefined;
}

async function check(bytes: string | Uint8Array): Promise<void> {
  const outcome = await load(bytes);
  const why = breach(outcome);
  if (why !== undefined)
    throw new Error(`${why}\n  for .syncrc ${JSON.stringify(typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("latin1")).slice(0, 400)}`);
}

const anyJson = fc.jsonValue({ maxDepth: 4 });
const nearValid = fc
  .record({
    top: fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 12 })), anyJson, { maxKeys: 6 }),
    designs: fc.array(
      fc.dictionary(fc.oneof(fc.constantFrom("dir", "design"), fc.string({ maxLength: 6 })), fc.oneof(anyJson, fc.string({ unit: "binary" })), { maxKeys: 3 }),
      {
        maxLength: 3,
      },
    ),
    keepDesigns: fc.boolean(),
  })
  .map(({ top, designs, keepDesigns }) => ({ ...VALID, ...top, ...(keepDesigns ? {} : { designs }) }));

describe(".syncrc fuzzing", () => {
  it("random JSON values: CONFIG_INVALID, one line per problem", async () => {
    await fc.assert(
      fc.asyncProperty(anyJson, (value) => check(JSON.stringify(value))),
      { numRuns: 300 },
    );
  });

  it("valid configs with random keys and values (every key, and inside designs)", async () => {
    await fc.assert(
      fc.asyncProperty(nearValid, (value) => check(JSON.stringify(value, null, 2))),
      { numRuns: 400 },
    );
  });

  it("hostile strings in every string slot: newlines, control characters, huge values, lone surrogates", async () => {
    const nasty = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.constantFrom("a\nb", "line\r\nbreak", "\u2028", "\u0000", "\ud800", "x".repeat(5_000), "../../etc", "C:\\x", "-rf /", "${HOME}"),
    );
    const slot = fc.constantFrom("baseUrl", "onConflict", "logLevel", "dir", "design", "ignore", "apiKey", "extra\nkey");
    await fc.assert(
      fc.asyncProperty(slot, nasty, async (key, value) => {
        const config: Record<string, unknown> = structuredClone(VALID);
        if (key === "dir" || key === "design") config.designs = [{ ...VALID.designs[0], [key]: value }];
        else if (key === "ignore") config.ignore = [value];
        else config[key] = value;
        await check(JSON.stringify(config));
      }),
      { numRuns: 300 },
    );
  });

  it("random bytes, and valid text with random bytes spliced in", async () => {
    const text = JSON.stringify(VALID, null, 2);
    const spliced = fc
      .tuple(fc.nat({ max: text.length }), fc.nat({ max: 8 }), fc.string({ unit: "binary", maxLength: 6 }))
      .map(([at, drop, insert]) => text.slice(0, at) + insert + text.slice(at + drop));
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), (bytes) => check(bytes)),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(spliced, (t) => check(t)),
      { numRuns: 300 },
    );
  });

  it("known edge texts", async () => {
    for (const t of [
      "",
      "\ufeff",
      "null",
      "[]",
      "{",
      '{"designs":',
      "/* only a comment */",
      "{}//",
      '{"__proto__":{"designs":[]}}',
      '{"constructor":{"prototype":{}}}',
      "1e999",
      '"\\ud800"',
      "{".repeat(5_000) + "}".repeat(5_000),
      "[".repeat(100_000),
    ]) {
      await check(t);
    }
  });
});
