/** The documented service files and the VS Code task match what mpsync really prints. */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import stripJsonComments from "strip-json-comments";
import { describe, expect, it } from "vitest";
import { Output } from "../../src/cli/output.js";
import type { SyncEvent } from "../../src/sync/events.js";

const EXAMPLES = join(import.meta.dirname, "../../docs/examples");

interface Matcher {
  source: string;
  pattern: { regexp: string; file: number; line: number; column?: number; message: number };
}

function renderHuman(event: SyncEvent): string {
  const stdout = new PassThrough();
  let text = "";
  stdout.on("data", (b: Buffer) => (text += b.toString()));
  new Output({ json: false, quiet: false, verbose: false, color: false, stdout, stderr: new PassThrough() }).event(event);
  return text.trimEnd();
}

describe("docs/examples/vscode-tasks.json", () => {
  it("its problem matchers find the file and line in mpsync's conflict and publish lines", async () => {
    const tasks = JSON.parse(stripJsonComments(await readFile(join(EXAMPLES, "vscode-tasks.json"), "utf8"))) as {
      tasks: { problemMatcher: Matcher[] }[];
    };
    const [conflict, publish] = tasks.tasks[0]!.problemMatcher;
    const conflictLine = renderHuman({
      event: "conflict",
      dir: "design",
      files: ["components/Button.tsx"],
      unresolved: true,
      message: "conflict in components/Button.tsx:12: markers written, resolve and save to push (both sides in .mpsync/conflicts/)",
    });
    const m1 = new RegExp(conflict!.pattern.regexp).exec(conflictLine);
    expect(m1?.[conflict!.pattern.file]).toBe("components/Button.tsx");
    expect(m1?.[conflict!.pattern.line]).toBe("12");
    const publishLine = renderHuman({
      event: "error",
      dir: "design",
      code: "UNPROCESSABLE",
      message: 'publish failed: Compilation failed: components/Card.tsx:2:11: Unexpected ";"',
    });
    const m2 = new RegExp(publish!.pattern.regexp).exec(publishLine);
    expect(m2?.[publish!.pattern.file]).toBe("components/Card.tsx");
    expect(m2?.[publish!.pattern.line]).toBe("2");
    expect(m2?.[publish!.pattern.column!]).toBe("11");
    expect(m2?.[publish!.pattern.message]).toBe('Unexpected ";"');
  });
});

describe("service files", () => {
  it("the systemd unit runs watch, reloads with SIGHUP, stops with SIGTERM, and does not restart-loop on config or key errors", async () => {
    const unit = await readFile(join(EXAMPLES, "mpsync.service"), "utf8");
    expect(unit).toMatch(/^ExecStart=.*mpsync watch --json$/m);
    expect(unit).toMatch(/^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^RestartPreventExitStatus=2 3 5$/m);
    for (const section of ["[Unit]", "[Service]", "[Install]"]) expect(unit).toContain(section);
  });

  it("the launchd plist runs watch and keeps it alive only after a failure", async () => {
    const plist = await readFile(join(EXAMPLES, "com.mpsync.watch.plist"), "utf8");
    expect(plist).toMatch(/<string>watch<\/string>\s*<string>--json<\/string>/);
    expect(plist).toMatch(/<key>SuccessfulExit<\/key>\s*<false\/>/);
    // Balanced tags: a cheap well-formedness check of the XML body.
    const body = plist.replace(/<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--[\s\S]*?-->/g, "");
    const stack: string[] = [];
    for (const [, close, name, selfClosing] of body.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
      if (selfClosing === "/") continue;
      if (close === "/") expect(stack.pop()).toBe(name);
      else stack.push(name!);
    }
    expect(stack).toEqual([]);
  });
});

describe("README", () => {
  it("documents every .syncrc key of the schema in its configuration table", async () => {
    const { buildSyncrcJsonSchema } = await import("../../src/config/json-schema.js");
    const schema = buildSyncrcJsonSchema() as { properties: Record<string, { properties?: Record<string, unknown> }> };
    const readme = await readFile(join(import.meta.dirname, "../../README.md"), "utf8");
    const keys = Object.entries(schema.properties).flatMap(([k, v]) =>
      k === "$schema" ? [] : v.properties === undefined ? [k] : Object.keys(v.properties).map((sub) => `${k}.${sub}`),
    );
    expect(keys.length).toBeGreaterThan(8);
    for (const key of keys) expect(readme).toContain(`| \`${key}\` |`);
  });
});
