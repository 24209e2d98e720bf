/**
 * Checks what the built CLI prints with --json against the published json-output.schema.json
 * (not the zod schemas it is generated from: users script against the file). Every end-to-end
 * run with --json goes through here (test/e2e/helpers.ts runCli, test/daemon/daemon-process.ts),
 * so a field or an event the schema lacks fails the test that printed it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { buildProgram } from "../../src/cli/program.js";
import type { CliIo } from "../../src/cli/context.js";

const SCHEMA_FILE = join(import.meta.dirname, "../../json-output.schema.json");

/** Every command the program declares. */
const COMMAND_NAMES = buildProgram({} as CliIo, { code: 0 }).commands.map((c) => c.name());

let published: ({ definitions: Record<string, unknown> } & Record<string, unknown>) | undefined;
const validators = new Map<string, z.ZodType>();

/** The validator of one definition of the published file (`status`, `event`, `error`...). */
export function publishedValidator(kind: string): z.ZodType {
  published ??= JSON.parse(readFileSync(SCHEMA_FILE, "utf8")) as { definitions: Record<string, unknown> } & Record<string, unknown>;
  if (!(kind in published.definitions)) throw new Error(`json-output.schema.json has no definition "${kind}"`);
  let v = validators.get(kind);
  if (v === undefined) {
    const { anyOf: _, ...rest } = published;
    v = z.fromJSONSchema({ ...rest, $ref: `#/definitions/${kind}` } as Parameters<typeof z.fromJSONSchema>[0]);
    validators.set(kind, v);
  }
  return v;
}

/** The document kinds `mpsync ...args --json` may print on stdout, one per line for streams. */
function kindsOf(args: readonly string[]): { kinds: string[]; lines: boolean } {
  const command = args.find((a) => COMMAND_NAMES.includes(a));
  const failed = ["error", "interrupted"];
  if (command === "watch" || command === "dev") return { kinds: ["event", ...failed], lines: true };
  if (command === "status" && args.includes("--watch")) return { kinds: ["status-watch", ...failed], lines: true };
  const played = command === "emulator" && args.some((a) => a === "web-edit" || a === "generate");
  const kind = command === "push" ? "pull" : command === "resume" ? "pause" : played ? "emulator-play" : (command ?? "error");
  return { kinds: [kind, ...failed], lines: false };
}

/** Why `doc` fits none of `kinds`, or undefined when it fits one. */
export function schemaMismatch(kinds: readonly string[], doc: unknown): string | undefined {
  const issues: string[] = [];
  for (const kind of kinds) {
    const r = publishedValidator(kind).safeParse(doc);
    if (r.success) return undefined;
    issues.push(`${kind}: ${z.prettifyError(r.error)}`);
  }
  return `--json output matches no definition of json-output.schema.json (${kinds.join(", ")}):\n${issues[0]}\n${JSON.stringify(doc)}`;
}

/** Throws when the stdout of `mpsync ...args` (run with --json) is not what the schema says. */
export function assertPublishedShape(args: readonly string[], stdout: string): void {
  if (!args.includes("--json") || args.includes("--help") || args.includes("-h") || stdout.trim() === "") return;
  const { kinds, lines } = kindsOf(args);
  // A stream's command that failed before it began prints one (indented) error document.
  const whole = lines && stdout.startsWith("{\n") ? [JSON.parse(stdout) as unknown] : undefined;
  const docs =
    whole ??
    (lines
      ? stdout
          .split("\n")
          .filter((l) => l.trim() !== "")
          .map((l) => JSON.parse(l) as unknown)
      : [JSON.parse(stdout) as unknown]);
  for (const doc of docs) {
    const mismatch = schemaMismatch(kinds, doc);
    if (mismatch !== undefined) throw new Error(mismatch);
  }
}
