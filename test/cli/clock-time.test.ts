/** One time format on the terminal: daemon events and log lines both print 24-hour local time. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Output } from "../../src/cli/output.js";
import { clockTime } from "../../src/log/clock-time.js";
import { renderLogLine } from "../../src/log/human-destination.js";

describe("clock time on the terminal", () => {
  it("is HH:MM:SS, 24-hour, whatever the locale", () => {
    const at = new Date(2026, 10, 23, 22, 5, 9); // local 10:05:09 PM
    expect(clockTime(at)).toBe("22:05:09");
    expect(clockTime(at.getTime())).toBe("22:05:09");
  });

  it("starts both a daemon event line and a log line", () => {
    const stdout = new PassThrough();
    let text = "";
    stdout.on("data", (b: Buffer) => (text += b.toString()));
    new Output({ json: false, quiet: false, verbose: false, color: false, stdout, stderr: new PassThrough() }).event({
      event: "ready",
      dir: "site",
      message: "watching for changes",
    });
    expect(text).toMatch(/^\d{2}:\d{2}:\d{2} site /);
    expect(text).not.toMatch(/ [AP]M /);
    const time = new Date(2026, 10, 23, 9, 1, 2).getTime();
    expect(renderLogLine(JSON.stringify({ level: 30, time, msg: "reloaded .syncrc" }))).toMatch(/^09:01:02 {2}INFO/);
  });

  it("indents a message's later lines under the event, so they do not read as stray output", () => {
    const stdout = new PassThrough();
    let text = "";
    stdout.on("data", (b: Buffer) => (text += b.toString()));
    new Output({ json: false, quiet: false, verbose: false, color: false, stdout, stderr: new PassThrough() }).event({
      event: "error",
      code: "CONFIG_INVALID",
      dir: "*",
      message: 'reload refused: .syncrc: designs[0]: unknown key "x"\n.syncrc: unknown key "y"',
    });
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^\d{2}:\d{2}:\d{2} \* .*reload refused: .syncrc: designs\[0\]/);
    expect(lines[1]).toBe('           .syncrc: unknown key "y"');
    expect(lines).toHaveLength(3);
  });
});
