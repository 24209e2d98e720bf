import { describe, expect, it } from "vitest";
import { exposedHostWarning } from "./emulator.js";

describe("exposedHostWarning", () => {
  it.each(["127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]"])("is quiet for loopback %s", (host) => {
    expect(exposedHostWarning(host)).toBeUndefined();
  });
  it.each(["0.0.0.0", "192.168.1.5", "::", "example.org"])("warns for %s", (host) => {
    expect(exposedHostWarning(host)).toMatch(/not a loopback address/);
  });
});
