import { describe, expect, it } from "vitest";
import { WriteGate } from "../../src/local/write-gate.js";

describe("WriteGate", () => {
  it("close waits for the writes in flight, then refuses new ones without running them", async () => {
    const gate = new WriteGate();
    let finish: () => void = () => undefined;
    const inFlight = gate.run(() => new Promise<string>((resolve) => (finish = () => resolve("written"))));
    let closed = false;
    const closing = gate.close().then(() => (closed = true));
    await Promise.resolve();
    expect(closed).toBe(false);
    let ran = false;
    await expect(gate.run(async () => (ran = true))).rejects.toMatchObject({ code: "INTERRUPTED" });
    expect(ran).toBe(false);
    finish();
    expect(await inFlight).toBe("written");
    await closing;
    expect(closed).toBe(true);
  });

  it("closes at once when nothing is in flight", async () => {
    const gate = new WriteGate();
    await gate.close();
    expect(gate.closed).toBe(true);
  });
});
