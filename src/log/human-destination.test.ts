import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";
import { createHumanLogDestination, renderLogLine, renderLogLineAsEvent } from "./human-destination.js";

describe("human log lines: no JSON on a terminal", () => {
  it("renders a pino record as one readable line with its fields", () => {
    const line = JSON.stringify({ level: 40, time: Date.UTC(2026, 10, 22, 14, 3, 7), dir: "web", msg: "held pushes", pending: 3, err: { message: "boom" } });
    const out = renderLogLine(line);
    expect(out).not.toMatch(/^\{/);
    expect(out).toContain("WARN");
    expect(out).toContain("web  held pushes");
    expect(out).toContain("pending=3");
    expect(out).toContain("error=boom");
  });

  it("a logger on the destination writes lines, not JSON, and leaves event duplicates out", () => {
    const written: string[] = [];
    const logger = createLogger({ level: "info", destination: createHumanLogDestination({ write: (t) => written.push(t) }, { verbose: true }) });
    logger.info({ dir: "web" }, "reloaded .syncrc");
    logger.warn({ shownAsEvent: true }, "refused remote file name");
    expect(written).toHaveLength(1);
    expect(written[0]).toContain("INFO   web  reloaded .syncrc");
    expect(() => JSON.parse(written[0] ?? "")).toThrow();
  });

  it("without -v, a record reads like an event: time, folder, badge, words; no level name, no key=value", () => {
    const at = Date.UTC(2026, 10, 22, 14, 3, 7);
    const info = renderLogLineAsEvent(JSON.stringify({ level: 30, time: at, dir: "admin", msg: "held pushes during checkout", waitedMs: 1404, pending: 2 }));
    expect(info).toMatch(/^\d\d:\d\d:\d\d admin notice {4}held pushes during checkout$/);
    const warn = renderLogLineAsEvent(JSON.stringify({ level: 40, time: at, msg: "stopping with unpushed changes", err: { message: "boom" } }));
    expect(warn).toMatch(/^\d\d:\d\d:\d\d mpsync ! warning stopping with unpushed changes: boom$/);
    const written: string[] = [];
    const logger = createLogger({ level: "info", destination: createHumanLogDestination({ write: (t) => written.push(t) }) });
    logger.info({ dir: "web", waitedMs: 3 }, "reloaded .syncrc");
    expect(written[0]).not.toContain("INFO");
    expect(written[0]).not.toContain("waitedMs=");
  });

  it("names a record's folder as the events' lines do (its label), in both forms", () => {
    const label = (dir: string): string => (dir === "../web" ? "web" : dir);
    const line = JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 22, 14, 3, 7), dir: "../web", msg: "reloaded .syncrc" });
    expect(renderLogLineAsEvent(line, label)).toMatch(/^\d\d:\d\d:\d\d web notice {4}reloaded \.syncrc$/);
    const written: string[] = [];
    const logger = createLogger({ level: "info", destination: createHumanLogDestination({ write: (t) => written.push(t) }, { verbose: true, folder: label }) });
    logger.info({ dir: "../web" }, "reloaded .syncrc");
    expect(written[0]).toContain("INFO   web  reloaded .syncrc");
    expect(written[0]).not.toContain("../web");
  });
});
