/**
 * Every help fits an 80-column terminal: a prose line wider than it was cut mid-word by the
 * terminal's own wrap (src/cli/help-wrap.ts reflows it; examples are kept to 80 by hand, with a
 * shell's `\` where a command is longer).
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";
import { wrapHelp } from "../../src/cli/help-wrap.js";
import type { CliIo } from "../../src/cli/context.js";

function helpOf(args: string[], columns?: number): string {
  let text = "";
  const stdout = Object.assign(new PassThrough(), { isTTY: columns !== undefined, columns });
  stdout.on("data", (d: Buffer) => (text += d.toString()));
  const io: CliIo = {
    argv: ["node", "mpsync", ...args, "--help"],
    cwd: "/",
    env: {},
    stdout,
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    onSignal: () => () => undefined,
  };
  const program = buildProgram(io, { code: 0 });
  try {
    program.parse(io.argv);
  } catch {
    // --help ends the parse through exitOverride.
  }
  return text;
}

const commands = buildProgram(
  { argv: [], cwd: "/", env: {}, stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), onSignal: () => () => undefined },
  { code: 0 },
).commands.map((c) => c.name());

describe("help at 80 columns", () => {
  it.each(["", ...commands])("mpsync %s --help: no line past 80 columns", (name) => {
    const text = helpOf(name === "" ? [] : [name]);
    expect(text).toContain("Usage: mpsync");
    expect(text.split("\n").filter((line) => line.length > 80)).toEqual([]);
  });

  it("a wider terminal shows the text as written (nothing reflowed that fits)", () => {
    const wide = helpOf(["status"], 120);
    expect(wide).toContain("Exit codes: 0 in sync or only changes waiting, 1 a design needs attention (halted, deleted\n");
  });
});

describe("wrapHelp", () => {
  it("reflows a paragraph with a line past the width, and leaves indented lines and fitting paragraphs alone", () => {
    const text = "one two three four five six\nseven\n\nshort\n  $ an indented example that is longer than the width";
    expect(wrapHelp(text, 12)).toBe("one two\nthree four\nfive six\nseven\n\nshort\n  $ an indented example that is longer than the width");
  });

  it("keeps a number with its unit", () => {
    expect(wrapHelp("within 0.5 s, as when", 11)).toBe("within\n0.5 s, as\nwhen");
  });
});
