import { describe, expect, it } from "vitest";
import { MpsyncError, type ErrorCode } from "../core/errors.js";
import { classifyFailure, type FailureClass } from "./failure.js";

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
