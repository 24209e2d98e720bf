import { describe, expect, it } from "vitest";
import { ContextError, errnoCode, errorCode, isErrno, MpsyncError, originOf } from "./errors.js";

const systemError = (code: string): Error => Object.assign(new Error(`${code}: failed`), { code });

describe("errnoCode and isErrno: the one errno reader", () => {
  it.each<[string, unknown, string | undefined]>([
    ["a system error", systemError("ENOENT"), "ENOENT"],
    [
      "the first error of an AggregateError (a connect to every address)",
      new AggregateError([systemError("ECONNREFUSED"), systemError("EHOSTUNREACH")]),
      "ECONNREFUSED",
    ],
    ["an error without a code", new Error("plain"), undefined],
    ["a numeric code", Object.assign(new Error("n"), { code: 7 }), undefined],
    ["not an object", "ENOENT", undefined],
    ["null", null, undefined],
  ])("%s", (_, err, code) => {
    expect(errnoCode(err)).toBe(code);
    expect(isErrno(err, "ENOENT", "ECONNREFUSED")).toBe(code === "ENOENT" || code === "ECONNREFUSED");
  });
});

describe("errorCode: the one code of any thrown value", () => {
  it.each<[string, unknown, string]>([
    ["an MpsyncError", new MpsyncError("FOLDER_LOCKED", "held"), "FOLDER_LOCKED"],
    ["a system error", systemError("EACCES"), "EACCES"],
    ["a plain error", new Error("boom"), "INTERNAL"],
    ["a thrown string", "boom", "INTERNAL"],
  ])("%s", (_, err, code) => expect(errorCode(err)).toBe(code));
});

describe("ContextError", () => {
  it("adds context to the message, keeps code and hint, and leaves the error it wraps unchanged", () => {
    const inner = new MpsyncError("NOT_FOUND", "no such design", { hint: "check the id" });
    const outer = new ContextError("web (design abc)", inner);
    expect(outer.message).toBe("web (design abc): no such design");
    expect([outer.code, outer.hint, outer.cause]).toEqual(["NOT_FOUND", "check the id", inner]);
    expect(inner.message).toBe("no such design");
    expect(originOf(new ContextError("outer", outer))).toBe(inner);
    expect(originOf(inner)).toBe(inner);
  });
});
