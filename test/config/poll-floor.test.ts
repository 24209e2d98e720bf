import { describe, expect, it } from "vitest";
import {
  checkPollFloor,
  checkRemoteCheckFloor,
  isLoopbackUrl,
  MIN_LOOPBACK_POLL_INTERVAL_SEC,
  MIN_POLL_INTERVAL_SEC,
  minPollIntervalSecFor,
} from "../../src/config/poll-floor.js";

describe("isLoopbackUrl", () => {
  it.each([
    ["http://127.0.0.1:4000/api", true],
    ["http://127.255.3.4", true],
    ["http://127.1:80", true],
    ["http://localhost:3000", true],
    ["http://LOCALHOST./x", true],
    ["http://[::1]:8080/api", true],
    ["http://[0:0:0:0:0:0:0:1]/", true],
    ["https://api.magicpatterns.com/api", false],
    ["http://128.0.0.1", false],
    ["http://127.0.0.1.example.com", false],
    ["http://localhost.example.com", false],
    ["http://[::2]", false],
    ["http://10.0.0.1", false],
    ["not a url", false],
  ])("%s -> %s", (url, expected) => {
    expect(isLoopbackUrl(url)).toBe(expected);
  });
});

describe("checkPollFloor", () => {
  it("has the documented floors", () => {
    expect(MIN_POLL_INTERVAL_SEC).toBe(60);
    expect(MIN_LOOPBACK_POLL_INTERVAL_SEC).toBe(0.05);
    expect(minPollIntervalSecFor("http://127.0.0.1:1")).toBe(0.05);
    expect(minPollIntervalSecFor("https://example.com")).toBe(60);
  });

  it.each([
    {
      sec: 5,
      url: "https://api.magicpatterns.com/api",
      message: "pollIntervalSec: 5 is below the 60 s floor for https://api.magicpatterns.com/api (only loopback addresses may poll faster)",
    },
    {
      sec: 59.9,
      url: "https://example.com",
      message: "pollIntervalSec: 59.9 is below the 60 s floor for https://example.com (only loopback addresses may poll faster)",
    },
    { sec: 60, url: "https://example.com", message: undefined },
    { sec: 0.05, url: "http://127.0.0.1:9", message: undefined },
    { sec: 0.01, url: "http://localhost:9", message: "pollIntervalSec: 0.01 is below the 0.05 s floor for http://localhost:9" },
  ])("$sec s against $url", ({ sec, url, message }) => {
    expect(checkPollFloor(sec, url)).toBe(message);
  });

  it("names where the baseUrl came from", () => {
    expect(checkPollFloor(1, "https://x.test", { baseUrlSource: "MPSYNC_BASE_URL" })).toBe(
      "pollIntervalSec: 1 is below the 60 s floor for https://x.test from MPSYNC_BASE_URL (only loopback addresses may poll faster)",
    );
  });
});

describe("checkRemoteCheckFloor", () => {
  it.each([
    {
      sec: 9,
      url: "https://api.magicpatterns.com/api",
      message: "remoteCheckSec: 9 is below the 10 s floor for https://api.magicpatterns.com/api (each check reads every file of the design)",
    },
    { sec: 10, url: "https://api.magicpatterns.com/api", message: undefined },
    { sec: 0.05, url: "http://127.0.0.1:9", message: undefined },
    {
      sec: 0.01,
      url: "http://[::1]:9",
      message: "remoteCheckSec: 0.01 is below the 0.05 s floor for http://[::1]:9 (each check reads every file of the design)",
    },
  ])("$sec s against $url", ({ sec, url, message }) => {
    expect(checkRemoteCheckFloor(sec, url)).toBe(message);
  });
});
