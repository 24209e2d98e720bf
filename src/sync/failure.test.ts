import { describe, expect, it } from "vitest";
import { MpsyncError, type ErrorCode } from "../core/errors.js";
import { classifyFailure, describeFailure, type FailureClass } from "./failure.js";

describe("classifyFailure", () => {
  it.each([
    ["UNAUTHORIZED", "fatal"],
    ["NO_API_KEY", "fatal"],
    ["FORBIDDEN", "stop-design"],
    ["NOT_FOUND", "stop-design"],
    ["UNSAFE_STATE_DIR", "stop-design"],
    ["FOLDER_LOCKED", "stop-design"],
    ["CONFIG_INVALID", "stop-design"],
    ["NO_ARTIFACT", "wait"],
    ["GIT_BUSY", "git"],
    ["NETWORK", "retry"],
    ["TIMEOUT", "retry"],
    ["SERVER_ERROR", "retry"],
    ["RATE_LIMITED", "retry"],
    ["PAYMENT_REQUIRED", "retry"],
    ["INVALID_RESPONSE", "retry"],
    ["INTERNAL", "retry"],
  ] as [ErrorCode, FailureClass][])("%s -> %s", (code, want) => {
    expect(classifyFailure(new MpsyncError(code, "x"))).toBe(want);
  });

  it("anything that is not an MpsyncError (a file-system error, a bug) is retried", () => {
    expect(classifyFailure(Object.assign(new Error("disk"), { code: "EIO" }))).toBe("retry");
    expect(classifyFailure("a string")).toBe("retry");
  });
});

describe("describeFailure", () => {
  it("names a full disk, what waits and what is kept, under one stable code", () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    expect(describeFailure(enospc, "web")).toEqual({
      code: "DISK_FULL",
      message:
        "the disk holding web is full (ENOSPC): its pushes and pulls wait, since each change is recorded in web/.mpsync/ before it is made; your edits stay on disk",
    });
    expect(describeFailure(Object.assign(new Error("quota"), { code: "EDQUOT" }), "web").code).toBe("DISK_FULL");
    expect(describeFailure(Object.assign(new Error("io"), { code: "EIO" }), "web")).toEqual({ code: "EIO", message: "io" });
  });
});
